# The two commands of the README: `make demo` (the main job) and `make test` (every test).
# Both install what is missing first (scripts/bootstrap.sh), so they work on a fresh machine.
.PHONY: demo test check build bootstrap bench figures clean

VENV := .venv/bin

# DEMO_OPTIONS: extra options of `hybridperf study`, e.g. DEMO_OPTIONS="--budget 60s" for a shorter race (a race
# needs at least 6 blocks of its two runs to say anything; below that budget it can only end undecided)
demo: bootstrap
	$(VENV)/hybridperf study studies/local.yaml $(DEMO_OPTIONS)

# one pytest worker more than cores: a worker spends about a quarter of its time waiting on the MPI runs it starts
# (145% of 2 cores busy with 2 workers; 174% with 3, and the suite 530 s -> 472 s here, docs/building.md)
test:
	scripts/bootstrap.sh --test
	ctest --test-dir build --output-on-failure
	$(VENV)/pytest -q -n $$(( $$(nproc) + 1 )) --dist loadgroup

# the unit tier alone (pure Python, no process started: tests/conftest.py fails one that starts any): under a minute,
# for a change to a formula, a table or a model; `make test` runs it too, with the kernel and external tiers
check:
	scripts/bootstrap.sh
	$(VENV)/pytest -q -m unit -n $$(( $$(nproc) + 1 )) --dist loadgroup

bootstrap:
	scripts/bootstrap.sh

build:
	cmake -S . -B build && cmake --build build -j

bench: bootstrap
	$(VENV)/python bench/md_vs_lammps.py

# Every number of ours in README.md and docs/*.md: the marked figures and generated tables (bench/figures.py), from the
# code, the run files in bench/runs/ and the outputs kept there of what is too slow for a test (remade here: minutes).
figures:
	$(VENV)/python bench/figures.py --refresh --write

clean:
	rm -rf build
