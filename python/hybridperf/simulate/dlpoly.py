"""DL_POLY's communication, for the simulator: the MPI operations one time step of DL_POLY issues on a metal
(EAM, Finnis-Sinclair, Gupta: its tests 20 and 30), laid over the domain decomposition an md plan gives.

Why: DL_POLY spends 21.74% of its time in MPI_Bcast and 10.08% in MPI_Allreduce (the DL_POLY paper's Table 5.1,
test 20 on 4 Merlin nodes, seed-spec §B.2), while hybridperf-md sums once per thermo step. The table itself says
where they come from: MPI_Allreduce's 10.08% is comms_module's gcheck_scalar (7.95%) and grsum_vector (2.13%)
exactly, the logical "is everyone safe" checks and the global sums; MPI_Bcast's 21.74% is read_config (19.64%)
and parse_module's get_line (2.07%): the master reads the CONFIG file and broadcasts it in batches, the other
ranks waiting inside MPI_Bcast. The first is every step's; the second is start-up I/O, not a step's (below).

What a step issues, read from the source of DL_POLY 4.01 (its first public revision, ccp5UK/dl-poly commit
ee1c65e1, the direct descendant of the 3.0 the thesis hybridised; the counts are assumed to be 3.0's), for a
periodic box without bonds, velocity Verlet at a fixed time step, relocation, halo and link cells every step:

- relocate_particles: per direction (-x, +x, -y, +y, -z, +z) deport_atomic_data's gcheck, a message of the count
  (one integer, MPI_Irecv + MPI_Send + MPI_Wait), a message of the leaving atoms (its first word the count,
  then the atoms: none on a lattice at rest), a gcheck; then gsum of the atom count;
- set_halo_particles: per direction export_atomic_data's gcheck, the count, a gcheck, the halo atoms (5 words
  each: x, y, z, global index, site);
- two_body_forces: link_cell_pairs' gcheck; metal_ld_compute's two gchecks and the gsum of its virial;
  metal_ld_set_halo: per direction metal_ld_export's gcheck, count, gcheck and the halo atoms' densities
  (5 words each: x, y, z, rho, index), then two gchecks; the gsum of 15 energies and virials;
- md_vv: the gsum of the stress (9 words) and kinstress's of the kinetic stress (9).

That is 46 allreduces and 36 messages per rank and step (tested), against hybridperf-md's 24 messages and one
32-byte allreduce per thermo step. A gcheck is a logical (4 bytes). The halo is the md plan's (its cut-off and
skin; DL_POLY's has no skin), and a message's packing is priced as md's per 24 bytes. The density pass is
priced before the first density message, after metal_ld_compute's checks (which follow it in DL_POLY).
Not here: read_config's start-up broadcasts (their time is the master's reading, which no step model has),
Tersoff (test 10: tersoff_forces' exchanges), thermostats and barostats.

DL_POLY's pairs with a halo atom are computed twice, once on each domain: link_cell_pairs lists every local
atom's halo neighbours, and metal_ld_collect_fst and metal_forces add a pair's density and force to the halo atom
only `If (jatm <= natms)` (no forces go home). So a domain's pair work is its atoms' times (1 + s), s the share of
an atom's neighbours outside its brick (`outside_share`), where hybridperf-md, whose costs are measured, sums
forces home and computes each pair once: the plan's ranks carry it as `pair_atoms`, what md_costs prices the
force and density passes by. Small domains pay most: pure MPI's at high core counts. Pure."""

from __future__ import annotations

import math
from dataclasses import replace

from hybridperf.simulate.plan import Op, Plan, RankPlan

WORD = 8  # bytes: DL_POLY's working precision
GCHECK, INTEGER = 4, 4  # a logical, an integer
ATOM_WORDS = 5  # per halo atom, positions' export and densities' alike
DIRECTIONS = 6


def _allreduce(bytes_: int) -> Op:
    return Op("allreduce", "reduction", bytes_)


def _message(region: str, to: int, source: int, sent: int, received: int) -> Op:
    """DL_POLY's MPI_Irecv, MPI_Send, MPI_Wait: a send and a receive in one exchange, as a Sendrecv costs."""
    return Op("sendrecv", region, sent, to, source, received, calls=3)


def _exchange(region: str, to: int, source: int, sent: int, received: int, deport: bool) -> tuple[Op, ...]:
    """One direction of an exchange: deport_atomic_data's order, or export_atomic_data's (metal_ld_export's)."""
    count = _message(region, to, source, INTEGER, INTEGER)
    data = _message(region, to, source, sent, received)
    if deport:
        return _allreduce(GCHECK), count, data, _allreduce(GCHECK)
    return _allreduce(GCHECK), count, _allreduce(GCHECK), data


def step_ops(halo: tuple[Op, ...], metal: bool) -> tuple[Op, ...]:
    """One rank's step, from the md plan's six halo messages (neighbours and atoms sent per direction)."""
    if len(halo) != DIRECTIONS:
        raise ValueError(f"a DL_POLY step needs the plan's {DIRECTIONS} halo messages, got {len(halo)}")
    atoms = [(op.to, op.source, op.bytes // 24, op.recv_bytes // 24) for op in halo]

    def each(region: str, words: int | None, deport: bool = False) -> tuple[Op, ...]:
        return tuple(o for to, source, out, back in atoms
                     for o in _exchange(region, to, source, WORD if words is None else out * words * WORD,
                                        WORD if words is None else back * words * WORD, deport))

    relocate = each("migration", None, deport=True) + (_allreduce(INTEGER),)
    set_halo = each("halo_exchange", ATOM_WORDS)
    forces = (_allreduce(GCHECK),)  # link_cell_pairs
    if metal:
        forces += (_allreduce(GCHECK), _allreduce(GCHECK), _allreduce(WORD))  # metal_ld_compute
        forces += each("density_exchange", ATOM_WORDS) + (_allreduce(GCHECK), _allreduce(GCHECK))
    forces += (_allreduce(15 * WORD),)  # two_body_forces' energies and virials
    return relocate + set_halo + forces + (_allreduce(9 * WORD), _allreduce(9 * WORD))


def outside_share(brick: tuple[float, float, float], cut: float) -> float:
    """The mean share of an atom's neighbours within `cut` that lie outside its brick (sides L, volume V), for atoms
    spread evenly: 1 - (the ball's integral of prod(L_k - |d_k|)) / (V 4 pi cut^3 / 3), which is
    (3 r / 8) sum 1/L_k - (2 r^2 / 5 pi) sum_{k<l} 1/(L_k L_l) + r^3 / (8 pi V) while r = cut <= every L_k (a cube
    of side a: 1.125 r / a at first order)."""
    if cut > min(brick):
        raise ValueError(f"a brick of {min(brick):.3g} is thinner than the cut-off {cut:.3g}: DL_POLY refuses it")
    x, y, z = brick
    faces, edges, volume = 1 / x + 1 / y + 1 / z, 1 / (x * y) + 1 / (y * z) + 1 / (x * z), x * y * z
    return 3 * cut / 8 * faces - 2 * cut ** 2 / (5 * math.pi) * edges + cut ** 3 / (8 * math.pi * volume)


def dlpoly_plan(md: Plan, metal: bool = True) -> Plan:
    """The md plan's decomposition and problem with DL_POLY's step: every step relocates, rebuilds the halo and
    the link cells and sums what DL_POLY sums (no separate thermo step); each rank's pairs across its brick's
    faces (the plan's box over its grid, within the potential's cut-off) are computed again (`pair_atoms`)."""
    if md.kernel != "md":
        raise ValueError(f"DL_POLY's step is laid over an md plan, not {md.kernel}'s")
    x, y, z = (side / n for side, n in zip(md.problem["box"], md.grid))
    share = outside_share((x, y, z), md.problem["cutoff"])

    def rank(r: RankPlan) -> RankPlan:
        ops = step_ops(tuple(op for op in r.ordinary if op.region == "halo_exchange"), metal)
        work = {**r.work, "pair_atoms": round(r.work["atoms"] * (1 + share))}
        return replace(r, work=work, ordinary=ops, rebuild=ops, thermo=())

    return replace(md, rebuild_steps=frozenset(range(1, md.steps + 1)), thermo_steps=frozenset(),
                   ranks_plan=tuple(rank(r) for r in md.ranks_plan))
