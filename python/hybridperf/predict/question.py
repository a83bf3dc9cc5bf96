"""The user's question — which ranks x threads split, for this workload, on this cluster, at these node counts —
and the predictor that answers it by each method: the closed form priced on a description or on this machine's
calibration (`modelled`), SimGrid's replay (`simulated`), a stored study's race (`measured`). `recommendation`
asks any predictor at every node count, then moves its inputs (predict.sensitivity). Pure but for the replays a
simulated predictor runs."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable

from hybridperf.analysis.sections import Section
from hybridperf.models import calibrate, measured as beside_runs, presets, split
from hybridperf.predict import measured, sensitivity
from hybridperf.predict.answer import Recommendation, Unanswerable
from hybridperf.predict.disagreement import disagreement
from hybridperf.predict.model import ModelPredictor
from hybridperf.predict.sensitivity import Predictor
from hybridperf.predict.simulated import simulation_of, SimulatedPredictor

DEFAULT_SECONDS_PER_UNIT = {"md": 150e-9, "spmv": 40e-9}  # per atom-step / row-call: assumed, a 2010s core
KERNELS = (*DEFAULT_SECONDS_PER_UNIT, "app")


@dataclass(frozen=True)
class Question:
    cluster: str = "this"  # a description's name, or this machine (calibrated)
    kernel: str = "md"  # md | spmv | app (the user's program, from its study's runs)
    size: int | None = None
    steps: int | None = None
    nodes: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64)
    work_seconds: float | None = None  # the model's serial work, given
    thread_loss: float | None = None  # the model's e_mt, given as a loss per extra thread
    future: bool = False  # the thesis's what-if hardware (model)
    window: int = 20  # steps replayed (simulation)

    @property
    def overrides(self) -> bool:
        """Whether the question changes the calibration's problem (then its runs answer another question)."""
        return bool(self.size or self.steps or self.work_seconds or self.future)


@dataclass(frozen=True)
class Calibration:
    """What a results directory holds for a question: its ok profiles (oldest first), its studies' sections and
    every stored run, failed ones included; and apart from the profiles, the runs made as copies at once
    (`hybridperf run --copies`), which price the node's efficiency only."""

    profiles: list[dict]
    studies: list[tuple[str, list[Section]]]
    runs: list[dict]
    copies: list[dict] = field(default_factory=list)

    def latest(self, kernel: str, usable: Callable[[dict], bool] = lambda p: True) -> dict | None:
        found = [p for p in self.profiles if p["kernel"] == kernel and usable(p)]
        return found[-1] if found else None

    def node_cores(self) -> int | None:
        """The cores of the node the calibration measured: its widest run's ranks x threads (docs/models.md asks for
        its microbenchmarks at every core); None without profiles."""
        return max((p["run"]["ranks_per_node"] * p["run"]["threads_per_rank"] for p in self.profiles), default=None)

    def serial(self, kernel: str) -> dict | None:
        """The latest run of the kernel at 1 rank x 1 thread."""
        return self.latest(kernel, lambda p: p["run"]["ranks"] == p["run"]["threads_per_rank"] == 1)

    def microbenchmarks(self) -> calibrate.Microbenchmarks:
        """mixbench ping-pong, ompbench PARALLEL_FOR and stream: the latest of each kind counts."""
        pingpong = self.latest("mixbench", lambda p: "pingpong" in p["mixbench"].get("hockney", {}))
        parallel_for = self.latest("ompbench", lambda p: any(f["name"] == "overhead.PARALLEL_FOR"
                                                             for f in p["figures_of_merit"]))
        streams = {p["run"]["threads_per_rank"]: p for p in self.profiles if p["kernel"] == "stream"}
        return calibrate.calibration(pingpong, parallel_for, list(streams.values()))


NONE = Calibration([], [], [])


def _problem(q: Question, c: split.Cluster, serial: dict | None, cal: Calibration) -> split.Problem:
    """The problem to split: the serial run's, rescaled to size, steps and the node (an app's: from its own runs);
    on a preset cluster the thesis's MD code as published; else a default with an assumed work rate."""
    preset = q.cluster in presets.PRESETS
    if q.kernel == "app":
        if serial is None:
            raise Unanswerable("the calibration holds no run of the program at 1 rank x 1 thread: its serial work is "
                               "not known")
        return calibrate.app_problem(cal.profiles, serial)
    if serial:
        return calibrate.problem_from(serial, q.size, q.steps, c.cores_per_node,
                                      calibrate.serial_work(cal.profiles, serial))
    if q.kernel == "md" and preset:
        return presets.md_problem_on(q.size or presets.THESIS_SMALL_SIZE, q.steps or presets.THESIS_STEPS)
    rate = DEFAULT_SECONDS_PER_UNIT[q.kernel]
    if q.kernel == "md":
        atoms, steps = 4 * (q.size or 32) ** 3, q.steps or 100
        problem = split.md_problem(atoms, steps, rate * atoms * steps)
    else:
        n, calls = q.size or 40, q.steps or 100
        problem = split.spmv_problem(n, c.cores_per_node, calls, rate * n**3 * c.cores_per_node * calls)
    unit = "atom-step" if q.kernel == "md" else "row-call"
    return replace(problem, work_source=f"assumed: {rate * 1e9:.0f} ns per {unit}")


@dataclass(frozen=True)
class Posed:
    """A predictor with what the renderer says about it: the node counts it answers, the cluster's line, the
    warnings its inputs raised, and whether a calibration's runs answer the same question (to set beside)."""

    predictor: Predictor
    counts: list[int]
    cluster: str
    about: str
    warnings: tuple[str, ...] = ()
    same_question: bool = False


def _within(counts: tuple[int, ...], nodes: int, cluster: str) -> list[int]:
    kept = [k for k in counts if k <= nodes]
    if not kept:
        raise Unanswerable(f"{cluster} has {nodes} nodes: --nodes asks for more")
    return kept


def modelled(q: Question, cal: Calibration) -> Posed:
    """The closed-form split model of the question: on this machine from the calibration's microbenchmarks, on a
    description from its figures; the problem's work and e_mt from the calibration's runs where it holds them."""
    serial = cal.serial(q.kernel) if cal.profiles else None
    warnings: tuple[str, ...] = ()
    counts = list(q.nodes)
    if q.cluster == "this":
        from hybridperf.launch.machine import local_machine  # this machine's cores: read only when asked

        micro = cal.microbenchmarks()
        cores = cal.node_cores() or local_machine().cores  # a calibration made elsewhere prices its own node
        copies = calibrate.copies_efficiency(cal.profiles, cal.copies, serial)
        c = calibrate.this_machine(micro, cores, q.kernel in calibrate.BANDWIDTH_BOUND, copies)
        counts, warnings = [1], (*micro.warnings, *copies.warnings)
    elif q.cluster in presets.PRESETS:
        c = presets.PRESETS[q.cluster]
    else:
        raise Unanswerable(f"unknown cluster '{q.cluster}': use this or one of {', '.join(presets.PRESETS)}")
    counts = _within(tuple(counts), c.nodes, c.name)
    try:
        problem = _problem(q, c, serial, cal)
    except ValueError as err:
        raise Unanswerable(str(err)) from None
    measured_e = calibrate.thread_efficiency(cal.profiles, q.kernel, serial) if cal.profiles else None
    if measured_e:
        problem = replace(problem, thread_efficiency=measured_e)
    if q.cluster in presets.PRESETS and (serial or (q.kernel == "md" and q.cluster != presets.THESIS_MACHINE)):
        problem = presets.borrowed(problem, "this machine's" if serial else "Merlin's (the thesis's)", c.name)
    if q.thread_loss is not None:
        threads = [sp.threads for sp in split.splits_of(c, 1)]
        problem = replace(problem, thread_efficiency=split.ThreadEfficiency.from_loss(
            q.thread_loss, threads, f"given: --thread-loss {q.thread_loss:g}"))
    if q.work_seconds is not None:
        problem = replace(problem, work_seconds=q.work_seconds, work_error=split.Problem.work_error,
                          work_source=f"given: --work-seconds {q.work_seconds:g}")
    refused = beside_runs.refusal(cal.runs, q.kernel)
    if refused:
        problem = replace(problem, max_threads=refused[0] - 1, refusal=refused[1])
    if q.future:
        c, problem = c.future(), problem.doubled()
    warnings = (*warnings, *problem.thread_efficiency.warnings)
    same = q.cluster == "this" and serial is not None and not q.overrides
    return Posed(ModelPredictor(c, problem), counts, c.name,
                 f"{c.name}: {c.cores_per_node} cores per node; {c.source}", warnings, same)


def simulated(q: Question, cal: Calibration, progress: Callable[[str], None]) -> Posed:
    sim = simulation_of(q.cluster, q.kernel, q.size, q.steps, cal.profiles, q.window)
    spec = sim.spec
    counts = _within(q.nodes, spec.nodes, spec.name)
    serial = sim.one_core["params"] if sim.one_core else None
    size_key = "size" if q.kernel == "md" else "n"
    steps_key = "steps" if q.kernel == "md" else "calls"
    same = serial is not None and q.cluster == "this" and q.size in (None, serial.get(size_key)) \
        and sim.steps == serial.get(steps_key)
    unit = "steps" if q.kernel == "md" else "calls"
    about = (f"{spec.name}: {spec.cores_per_node} cores per node, simulated with SimGrid ({sim.window} of "
             f"{sim.steps} {unit} replayed and scaled); compute model: {sim.model.describe()['sources']['costs']}")
    warnings = sim.threads.warnings if sim.threads else ()
    return Posed(SimulatedPredictor(sim, progress), counts, spec.name, about, tuple(warnings), same)


def measured_study(study: str, sections: list[Section], size: int | None, cluster: str = "this",
                   replayed_on: str | None = None) -> Posed:
    """A stored study's races on one of its problems: the one --size names, or its only one. Asked for another
    cluster, the answer is still the measured machine's, and a warning says so and what predicts for that one.
    `replayed_on`: the study is an app's traced runs replayed on that cluster (simulate.app_study), raced as its
    runs were: the simulation's answer for the user's own program."""
    def sized(section: Section) -> int | None:
        return section.params.get("size", section.params.get("n"))

    chosen = [s for s in sections if size is None or sized(s) == size]
    if size is not None and not chosen:
        raise Unanswerable(f"study {study} has no problem of size {size} (it has: "
                           f"{'; '.join(s.title() for s in sections)})")
    if len(chosen) > 1:
        raise Unanswerable(f"study {study} has {len(chosen)} problems ({'; '.join(s.title() for s in chosen)}): "
                           "choose one with --size")
    if not chosen or not chosen[0].verdicts:
        raise Unanswerable(f"study {study} holds no race to answer from")
    if replayed_on:
        predictor = measured.MeasuredPredictor(study, chosen[0], "simulation")
        return Posed(predictor, predictor.node_counts, replayed_on,
                     f"study {study}, {chosen[0].title()}: every run's traces replayed on {replayed_on} with SimGrid "
                     "(each run's measured compute kept, cores as measured), raced by the study's rule (confidence "
                     f"{chosen[0].rule.confidence:g}, tie within ±{100 * chosen[0].rule.tie_within:g}%)")
    predictor = measured.MeasuredPredictor(study, chosen[0])
    elsewhere = () if cluster == "this" else (
        f"--cluster {cluster}: this answer is the machine study {study} ran on, not {cluster}; --by model or --by "
        f"simulation --cluster {cluster} predicts for {cluster} from these runs (docs/models.md)",)
    return Posed(predictor, predictor.node_counts, f"the machine study {study} ran on",
                 f"study {study}, {chosen[0].title()}: every split as its runs measured it, raced by the study's "
                 f"rule (confidence {chosen[0].rule.confidence:g}, tie within ±{100 * chosen[0].rule.tie_within:g}%)",
                 elsewhere)


def recommendation(q: Question, posed: Posed, cal: Calibration = NONE,
                   progress: Callable[[str], None] = lambda line: None) -> Recommendation:
    """The predictor's answer at every node count, the moves of its inputs that change each, and — where the
    calibration measured the same problem — its runs beside the prediction, whose race overrules it if decided."""
    p = posed.predictor
    answers = [p.answer(n) for n in posed.counts]
    moves = sensitivity.moves(p, answers, progress)
    measured_answer, note = None, ""
    if posed.same_question and answers[0].nodes == 1:
        measured_answer, note = measured.beside(cal.profiles, cal.studies, cal.serial(q.kernel),
                                                [pr.split for pr in answers[0].predictions], answers[0].winner)
    differs = disagreement(p.method, answers[0], measured_answer) if measured_answer else ""
    return Recommendation(p.method, posed.cluster, workload_of(q, posed), posed.about, p.inputs(), tuple(answers),
                          moves, sensitivity.limit(p), posed.warnings, measured_answer, note, differs)


def workload_of(q: Question, posed: Posed) -> str:
    """How the renderer names the workload: the model's problem, or the kernel and its size."""
    if isinstance(posed.predictor, ModelPredictor):
        return posed.predictor.problem.name
    if isinstance(posed.predictor, measured.MeasuredPredictor):  # the study's own problem, whatever --kernel says
        return f"study {posed.predictor.study} — {posed.predictor.section.title()}"
    return f"{q.kernel} — size {q.size or 'as calibrated'}, {q.steps or 'default'} steps"


