# Shared by every bench Makefile: the bench sets UNIT (emit-unit name) and BENCH (its folder name), then
# includes this file. `make` runs the bench at WIDTH=64; `make WIDTH=512` at 512 bits where the unit is
# width-generic. The Verilog comes from `emit-unit` (cargo, release profile) into build/.
WIDTH ?= 64
COCOTB_DIR := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
REPO := $(abspath $(COCOTB_DIR)/../..)
VENV_BIN := $(REPO)/out/venv-cocotb/bin
ifneq ($(wildcard $(VENV_BIN)/cocotb-config),)
export PATH := $(VENV_BIN):$(PATH)
COCOTB_CONFIG := $(VENV_BIN)/cocotb-config
# cocotb's makefiles look for cocotb-config on the PATH make started with: point them at the venv.
override PYTHON_BIN := $(VENV_BIN)/python
else
COCOTB_CONFIG := cocotb-config
endif

SIM ?= icarus
TOPLEVEL_LANG ?= verilog
BUILD_DIR := $(CURDIR)/build/$(WIDTH)
SIM_BUILD := $(BUILD_DIR)/sim
VERILOG := $(BUILD_DIR)/$(UNIT)_$(WIDTH).v
VERILOG_SOURCES := $(VERILOG)
COCOTB_TOPLEVEL := top
COCOTB_TEST_MODULES := test_$(BENCH)
COCOTB_RESULTS_FILE := $(BUILD_DIR)/results.xml
COCOTB_RANDOM_SEED ?= 1
export COCOTB_RANDOM_SEED
export BENCH_WIDTH := $(WIDTH)
export PYTHONPATH := $(COCOTB_DIR):$(CURDIR):$(PYTHONPATH)

include $(shell $(COCOTB_CONFIG) --makefiles)/Makefile.sim

# Always re-emit (the Rust may have changed), but replace the file only when its text changed, so
# Icarus rebuilds only then.
$(VERILOG): FORCE
	@mkdir -p $(dir $@)
	cd $(REPO) && cargo run --release -q --bin emit-unit -- $(UNIT) $(WIDTH) $@.tmp $(QP_LOG)
	@if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; fi

.PHONY: FORCE
FORCE:

clean::
	rm -rf $(CURDIR)/build
