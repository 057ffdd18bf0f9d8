"""PTX -> kernel source: lexer, parser, IR, passes and per-target emission.

    from pyshim.ptx.translate import translate
    c_source = translate(ptx_text, "cpu-wave64")   # or cpu-wave32, hip-wave64:gfx942, ...

Pipeline: frontend (lexer.Source regex tokens -> parser.parse -> ir.Module, validate) ->
passes.run(module, target) (site numbers, call graph, shared-memory layout; then the target's
own passes: the CPU's classify_sync, its thread modes and region plans, into each
Function.info, an ir.FunctionPlan, and Module.info, an ir.ModulePlan) ->
translate.Translator with a targets.* Target (isa: instructions.emit per instruction
through the isa.emitter.FunctionEmitter, barriers and warp collectives spelled by the
target's collectives.Form; preludes/*.h as the intrinsic layer). analysis/ holds IR analyses targets read (affine values, pointer shadows);
targets/cpu/ the CPU device's back end.
Errors: errors.PtxError / errors.UnsupportedInstruction, each with a `cuda_error`.
"""
