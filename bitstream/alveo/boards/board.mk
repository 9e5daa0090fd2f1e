# Shared rules of the Alveo board builds; each board's Makefile sets BOARD_DIR and includes this.
# `make bitstream` (needs Vivado 2023.2 and the CMAC licence), `make check` (no Vivado), `make clean`.
BOARD     := $(notdir $(BOARD_DIR))
ROOT      := $(abspath $(BOARD_DIR)/../../../..)
ALVEO     := $(ROOT)/bitstream/alveo
OUT       := $(ROOT)/build/alveo/$(BOARD)
VIVADO    ?= vivado

.PHONY: bitstream check clean

bitstream:
	mkdir -p $(OUT)
	cd $(ROOT) && cargo run --release -q --bin emit -- 512 build/alveo/nic512.v
	cd $(OUT) && $(VIVADO) -mode batch -nojournal -log vivado.log -source $(ALVEO)/flow.tcl -tclargs $(BOARD_DIR) $(OUT)

check:
	bash $(ALVEO)/check/check.sh

clean:
	rm -rf $(OUT)
