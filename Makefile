# Everything runs inside .venv, created on first use from PyPI only.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
POSDATA := $(VENV)/bin/posdata
STAMP  := $(VENV)/.installed

.PHONY: help demo test test-slow formal formal-full lint perft-deep perft-hw synth synth-seeds bench bench-hw bench-sim bench-scale bench-search bench-search-threads bench-search-pipeline bench-search-area bench-features bench-play bench-chip bench-variants docs measurements measurements-long clean

help:
	@echo "make demo        set up .venv and run the main job"
	@echo "make test        the test suite (what CI runs)"
	@echo "make test-slow   the deeper sweeps marked slow"
	@echo "make formal      the fast formal set (SymbiYosys + yices), about 3 minutes"
	@echo "make formal-full every formal check, the netlist and bitstream checks, mutation"
	@echo "make lint        ruff"
	@echo "make perft-deep  software perft of the standard positions, deeper"
	@echo "make perft-hw    the perft chip against software perft: six positions to depth 4, initial to 5"
	@echo "make synth       bitstream and report for the ULX3S-25F (BOARD=... for another)"
	@echo "make synth-seeds the same build with 5 placement seeds: min/median Fmax"
	@echo "make bench       software perft speed against python-chess, in process and whole process"
	@echo "make bench-hw    gateware clock cycles per generation on the standard positions"
	@echo "make bench-sim   compiled (CXXRTL) against Amaranth's simulator, cycles/s; the perft chip, the board and the search thread under CXXRTL and Verilator; perft(5) wall time with -j 1 and -j 2"
	@echo "make bench-scale -j 1 against -j 2 (sw, gen, hw perft) and pysim/cxxrtl/verilator clocks/s"
	@echo "make bench-search  search nodes/s to depth 4 and the search signature; the search thread's clocks per node, its load, projected nodes/s at the 25F clock"
	@echo "make bench-search-threads  a search board with 1, 2, 4 and 8 threads projected whole: the host's batches, its own time, the link's exchanges and the chip's clocks, beside GNU Chess"
	@echo "make bench-search-pipeline  the pipelined search thread's clocks per node estimated from the reference's events over the bench tree: today's Next/Test/Judge modelled, the pipelined stream, the segments, the estimate and its sensitivities (STATES=\"...\": search_chip.py's clocks by state; MEASURED=C checks a built thread within 25 %)"
	@echo "make bench-search-area  the search thread alone on the ECP5 25F, out of context: cells, routed Fmax, critical path (minutes; PART=attack_map, victim_scan, aggressor_unit, capture_pipe, eval_pipe, capture_finder or child_eval, or several with commas: each part alone, its ports registered)"
	@echo "make bench-features  what each feature of the chip's search buys: nodes and the clock estimate with the check extension, evasions, draws, structure terms, contempt and killers added one at a time (GAMES=100 also plays each row against the software search: hours)"
	@echo "make bench-play  playing strength: the chip's search against the software search, 200 games at depth 3 through posdata match, two at once (score, Elo and its error bar, draws, threefold) and Win At Chess (solved counts; an hour or so)"
	@echo "make bench-chip  the perft chip: clocks per leaf, leaves/s at Fmax, against software and Stockfish"
	@echo "make bench-variants  software perft nodes/s, table sizes, gateware cycles per move per variant"
	@echo "make measurements  run the benches and the 25F build: docs/measurements.md and the README's figures (a quarter of an hour)"
	@echo "make measurements-long  the long runs: 85F builds, perft(6) projection, placement seeds (hours; ONLY=id ... for some)"
	@echo "make docs        redraw docs/pipeline.svg, the variants' table, docs/measurements.md"

# pip's and setuptools' chatter goes to the log; its tail is shown if the install fails.
INSTALL_LOG := build/install.log
$(STAMP): pyproject.toml
	@mkdir -p build
	@echo "== Installing posdata and its tools from PyPI into $(VENV) (a few minutes the first time; log: $(INSTALL_LOG))"
	@{ $(PYTHON) -m venv $(VENV) && $(PY) -m pip install --upgrade pip \
	   && $(PY) -m pip install -e '.[dev]'; } > $(INSTALL_LOG) 2>&1 \
	 || { tail -n 20 $(INSTALL_LOG); echo "make: the install failed; its whole log is $(INSTALL_LOG)"; exit 1; }
	@touch $@

# SYNTH=0 skips the bitstream build at the end of the demo.
SYNTH ?= 1
BOARD ?= ulx3s-25f

demo: $(STAMP)
	SYNTH=$(SYNTH) $(POSDATA) demo

# TEST_WORKERS=N (or auto: one per core; PYTEST_XDIST_AUTO_NUM_WORKERS=N caps it) runs the suite
# on N pytest-xdist workers, a test file per worker (--dist loadfile: its module-scoped fixtures,
# a compiled model or an elaborated chip, are set up once, and its tests run in their order).
# Off by default: on the shared 2-core machine, under other jobs' load, 2 workers were no faster
# than one process and took ~20 % more CPU time (see the commit that made this a knob).
TEST_WORKERS ?= 0
XDIST := $(if $(filter-out 0,$(TEST_WORKERS)),-n $(TEST_WORKERS) --dist loadfile)

test: $(STAMP)
	$(PY) -m pytest $(XDIST)

test-slow: $(STAMP)
	$(PY) -m pytest $(XDIST) -m slow

formal: $(STAMP)
	$(PY) -m tests.formal.run

formal-full: $(STAMP)
	$(PY) -m tests.formal.run --full
	$(PY) -m pytest -m "slow or not slow" tests/netlist tests/formal/test_table_facts.py
	$(PY) -m tests.formal.mutation

lint: $(STAMP)
	$(VENV)/bin/ruff check engine hdl sim tests bench docs

perft-deep: $(STAMP)
	$(PY) -m pytest -m slow tests/engine/rules/test_perft.py

perft-hw: $(STAMP)
	$(POSDATA) compare --depth 4
	$(POSDATA) perft --backend both --depth 5
	$(POSDATA) perft --backend gen --check --depth 4

synth: $(STAMP)
	$(POSDATA) synth --board $(BOARD)

synth-seeds: $(STAMP)
	$(POSDATA) synth --board $(BOARD) --seeds 5

bench: $(STAMP)
	$(PY) bench/perft_sw.py

bench-hw: $(STAMP)
	$(PY) bench/hw_cycles.py

bench-sim: $(STAMP)
	$(PY) bench/sim_speed.py
	$(PY) bench/chip_sim.py
	$(PY) bench/model_sim.py
	$(PY) bench/chip_wall.py

bench-scale: $(STAMP)
	$(PY) bench/scale.py

bench-search: $(STAMP)
	$(PY) bench/search.py
	$(PY) bench/search_chip.py

bench-search-threads: $(STAMP)
	$(PY) bench/search_threads.py

bench-search-pipeline: $(STAMP)
	$(PY) bench/search_pipeline.py $(if $(STATES),--states "$(STATES)") $(if $(MEASURED),--measured $(MEASURED))

bench-variants: $(STAMP)
	$(PY) bench/variants.py
	$(PY) bench/variants.py --hw

PART ?=
bench-search-area: $(STAMP)
	$(PY) bench/search_area.py $(if $(PART),--part $(PART))

GAMES ?= 0
bench-features: $(STAMP)
	$(PY) bench/search_features.py --games $(GAMES)

bench-play: $(STAMP)
	$(PY) bench/search_play.py

bench-chip: $(STAMP)
	$(PY) bench/chip.py

# The quick set of bench/measure.py; each job's figures keep their command, commit and date.
measurements: $(STAMP)
	$(PY) bench/measure.py

# ONLY="synth-85f chip-85f" reruns some of the long jobs (bench/measure.py --list names them).
ONLY ?=
measurements-long: $(STAMP)
	$(PY) bench/measure.py $(if $(ONLY),--only $(ONLY),--long)

docs: $(STAMP)
	$(PY) docs/draw_pipeline.py
	$(PY) docs/variants_table.py
	$(PY) bench/report.py

clean:
	rm -rf build .pytest_cache
