"""PTX -> kernel source: lexer, parser, IR, passes and per-target emission.

    from pyshim.ptx.translate import translate
    c_source = translate(ptx_text, "cpu-wave64")   # or cpu-wave32, hip-wave64:gfx942, ...

Pipeline: lexer.Source (regex tokens) -> parser.parse (ir.Module) -> passes.run (site
numbers, call graph, shared-memory layout, CPU execution mode) -> translate.Translator with a
targets.* Target (instructions.emit per instruction, preludes/*.h as the intrinsic layer).
Errors: errors.PtxError / errors.UnsupportedInstruction, each with a `cuda_error`.
"""
