"""What the function emitter hands a target: one record per body line, in C with
placeholders, and the namings that render it.

A record is an instruction (its site and kind: plain | barrier | collective | branch, the
EMIT row's), a label, a declaration, a scope brace or a mark (where a phase kernel resumes,
where a region starts). Its C is a template: text alternating with placeholders, each
between two PH characters, naming either a register (its C name) or a synchronisation
point ("@bar:<site>", "@coll:<site>", "@region:<label>", "@resume") or a branch
("@goto:<label>", the whole `goto label;`), a return ("@ret") or the address a register
holds ("@addr:<register>", the CPU phase form's `(uint8_t *)(uintptr_t)<register>`). The
target renders a template with a Naming, which spells each register (a scalar local, a
context field, a per-thread array element) and each point; a target that runs the body as
it stands (every GPU target, CPU thread loops and fibers) gets templates without
placeholders, already its C. Besides its C, a record says what the back end would otherwise
read from it: whether it reads the thread's context, its guard, the registers it writes.
"""

from __future__ import annotations

from dataclasses import dataclass

PH = "\x01"  # placeholder delimiter (never in C the emitter writes)

PLAIN, BARRIER, COLLECTIVE, BRANCH = "plain", "barrier", "collective", "branch"
LABEL, DECL, SCOPE, MARK = "label", "decl", "scope", "mark"


def reg(cname: str) -> str:
    """A register's placeholder."""
    return PH + cname + PH


def point(what: str) -> str:
    """A synchronisation point's placeholder ("@bar:12", "@coll:12", "@region:L_x", "@resume")."""
    return PH + what + PH


def parts(template: str) -> list[str]:
    """A template as [text, placeholder, text, ...]."""
    return template.split(PH)


def names(template: str) -> set[str]:
    """The registers (C names) a template spells (as themselves or as an address)."""
    # every placeholder, then the points among them (fewer, once repeats are gone) replaced
    # by the addresses' registers: a region's text holds thousands of placeholders
    out = set(template.split(PH)[1::2])
    points = [x for x in out if x[:1] == "@"]
    if points:
        out.difference_update(points)
        out.update([x[6:] for x in points if x[:6] == "@addr:"])
    return out


_GOTO = PH + "@goto:"


def gotos(template: str) -> list[str]:
    """The labels (C names) a template's branches go to, in order."""
    if _GOTO not in template:
        return []
    return [x[6:] for x in template.split(PH)[1::2] if x[:6] == "@goto:"]


@dataclass(slots=True)
class Record:
    kind: str               # PLAIN | BARRIER | COLLECTIVE | BRANCH | LABEL | DECL | SCOPE | MARK
    template: str           # C with placeholders
    site: int | None = None  # an instruction's site (passes/number_sites.py)
    # a collective's deposit: the register (C name) it hands the other lanes as it stands
    # (shfl's source, unconverted), else None
    deposit: str | None = None
    # what a label record names, or what a branch record goes to (C names)
    label: str | None = None
    # whether the instruction reads the thread's context (`ctx`) other than through its
    # placeholders and the values uniform over the block (PS_SHARED, %ctaid, %ntid,
    # %nctaid): %laneid, the dynamic shared window, a collective's result lanes, a call...
    # (a collective's, where it resumes); the emitter's handlers set it (fe.context)
    context: bool = False
    # a predicated instruction's guard: its predicate register (C name) and whether the
    # guard is negated (`@!%p`), else None
    cond: tuple[str, bool] | None = None
    # the registers (C names) an instruction of a region-planned phase body writes (its
    # destinations; a collective's, where it resumes)
    writes: tuple[str, ...] = ()

    @property
    def regs(self) -> set[str]:
        """The registers the record reads or writes (C names)."""
        return names(self.template)


class Naming:
    """Spells a template's placeholders: registers as themselves (locals); a target that
    spells the synchronisation points overrides `point`."""

    def reg(self, name: str) -> str:
        return name

    def point(self, what: str) -> str:
        raise ValueError(f"no spelling for {what}")

    def render(self, template: str) -> str:
        if PH not in template:
            return template
        out = template.split(PH)
        for i in range(1, len(out), 2):
            x = out[i]
            out[i] = self.point(x) if x[:1] == "@" else self.reg(x)
        return "".join(out)


SCALAR = Naming()
