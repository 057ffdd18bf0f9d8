# pyshim: the usual entry points. Every target is a thin wrapper over `pyshim` or pytest.
PYTHON ?= python3
NVCC ?= nvcc
BUILD ?= build
EXAMPLES := $(wildcard examples/*.cu)
EX_OUT := $(BUILD)/examples
# every example in each runtime flavour: static cudart (nvcc's default), shared cudart,
# per-thread default stream
EX_BINS := $(foreach e,$(EXAMPLES),$(EX_OUT)/$(basename $(notdir $(e))) \
	$(EX_OUT)/$(basename $(notdir $(e)))_shared $(EX_OUT)/$(basename $(notdir $(e)))_ptds)

.PHONY: all build tables tables-check examples test bench demo setup lint clean differential

all: build

# clang-19/lld-19 compile translated kernels for AMD GPUs (pyshim ptx compile --arch gfxNNN)
# and, preferred over cc, for the CPU device (libomp-19-dev: the benchmarks' C loops);
# installed from Debian when this is a Debian machine and we may (root), else skipped
setup:
	$(PYTHON) -m pip install -q -e '.[test]'
	@if ! command -v clang++-19 >/dev/null && command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
	        --no-install-recommends clang-19 lld-19 llvm-19 libomp-19-dev >/dev/null; fi
	@# FFTW 3: the CPU device's hipFFT (without it cuFFT is left out of the build, with a message)
	@if [ ! -f /usr/include/fftw3.h ] && command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
	        --no-install-recommends libfftw3-dev >/dev/null; fi
	@# gloo: the CPU device's NCCL communicators across processes (without it they are refused)
	@if [ ! -f /usr/include/gloo/config.h ] && command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
	        --no-install-recommends libgloo-dev >/dev/null; fi

build:
	$(PYTHON) -m pyshim build

tables:
	$(PYTHON) -m pyshim tables generate

tables-check:
	$(PYTHON) -m pyshim tables check

examples: $(EX_BINS)

$(EX_OUT)/%: examples/%.cu
	@mkdir -p $(EX_OUT)
	$(NVCC) -O2 -o $@ $<

$(EX_OUT)/%_shared: examples/%.cu
	@mkdir -p $(EX_OUT)
	$(NVCC) -O2 -cudart shared -o $@ $<

$(EX_OUT)/%_ptds: examples/%.cu
	@mkdir -p $(EX_OUT)
	$(NVCC) -O2 --default-stream per-thread -o $@ $<

test:
	$(PYTHON) -m pytest -q -n 2 --durations=25 tests

lint:
	$(PYTHON) -m ruff check pyshim tests benchmarks

bench:
	$(PYTHON) -m benchmarks

# on a machine with an NVIDIA GPU: examples natively vs under pyshim, and the cuda target
differential:
	$(PYTHON) -m pyshim.differential

# set up on a fresh machine and run one example on the CPU device
demo: setup build $(EX_OUT)/vector_add
	$(PYTHON) -m pyshim run $(EX_OUT)/vector_add

clean:
	rm -rf $(BUILD)
