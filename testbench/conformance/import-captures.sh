#!/usr/bin/env bash
# Rebuilds the conformance cases made from captures (testbench/conformance/cases/capture_*), on purpose:
# the NIC takes one side's place, the other side's frames are replayed, the captured side's frames are
# the reference. Needs ../shared/captures (beside the project root); the cases it writes are committed,
# so replaying them (`rocenic conformance replay`, scripts/test.sh) never needs the captures.
set -euo pipefail
cd "$(dirname "$0")/../.."
caps=${ROCENIC_CAPTURES:-../shared/captures}
import() { cargo run --release -q -p rocenic-driver --bin rocenic -- conformance import "$@"; }
rm -rf testbench/conformance/cases/capture_rxe_rc_pingpong_* testbench/conformance/cases/capture_public_*
if [[ -f ${ROCENIC_INTEROP_CAPTURES:-out/interop-perftest}/send-bw-A-1024-64.pcap ]]; then
    rm -rf testbench/conformance/cases/capture_rxe_ib_*
fi
import "$caps/rxe-rc-pingpong.pcap" --nic-ip 10.0.0.2 --frames 200 --name capture_rxe_rc_pingpong_as_rxe \
    --rule "9.7.5, 9.7.6: in rdma_rxe's place in ibv_rc_pingpong (rxe's frames as reference): each SEND ONLY lands in the next receive and is ACKed with its PSN and MSN, the NIC's own SENDs go out at rxe's PSNs"
import "$caps/rxe-rc-pingpong.pcap" --nic-ip 10.0.0.1 --frames 200 --name capture_rxe_rc_pingpong_as_host \
    --rule "9.7.5, 9.7.6: in the host-side peer's place against rdma_rxe's ibv_rc_pingpong (that side's frames as reference): SENDs and ACKs as the captured peer sent them"
import "$caps/roce-public-send-imm.pcap" --nic-ip 192.168.70.4 --frames 200 --name capture_public_send_imm_responder \
    --rule "9.7.5, 9.4.4: in the receiving host's place in a public RoCEv2 capture (SEND FIRST / SEND LAST WITH IMMEDIATE): every message lands with its immediate; ACKs carry each AckReq PSN and the MSN the captured responder's did (credit counts aside, coalescing allowed)"
import "$caps/roce-public-send-imm.pcap" --nic-ip 192.168.70.6 --frames 200 --name capture_public_send_imm_requester \
    --rule "9.2, 9.7.6: in the sending host's place in a public RoCEv2 capture: each 2 KiB SEND WITH IMMEDIATE goes out as FIRST + LAST WITH IMMEDIATE at the captured PSNs and completes on the peer's credit-bearing, coalesced ACKs"
# Captures recorded from rdma_rxe through the interop harness (testbench/interop/perftest.sh writes them;
# role A is rxe's perftest server, rocenic's the client): the NIC takes rxe's place.
rec=${ROCENIC_INTEROP_CAPTURES:-out/interop-perftest}
if [[ -f $rec/send-bw-A-1024-64.pcap ]]; then
    import "$rec/send-bw-A-1024-64.pcap" --nic-ip 10.0.0.1 --frames 100 --name capture_rxe_ib_send_bw_as_rxe \
        --rule "9.7.5: in rdma_rxe's place as ib_send_bw's server (rxe's frames, recorded through the interop harness, as reference): each 64-byte SEND ONLY lands in the next receive and is ACKed with its PSN and MSN as rxe did"
    import "$rec/write-bw-A-1024-64.pcap" --nic-ip 10.0.0.1 --frames 200 --name capture_rxe_ib_write_bw_as_rxe \
        --rule "9.7.5: in rdma_rxe's place as ib_write_bw's server (rxe's frames, recorded through the interop harness, as reference): each 64-byte RDMA WRITE lands and is ACKed as rxe ACKed it"
    import "$rec/read-bw-A-1024-64.pcap" --nic-ip 10.0.0.1 --frames 200 --name capture_rxe_ib_read_bw_as_rxe \
        --rule "9.7.5.1.5: in rdma_rxe's place as ib_read_bw's server (rxe's frames, recorded through the interop harness, as reference): each 64-byte RDMA READ is answered with a READ RESPONSE ONLY carrying the PSN, MSN and data rxe sent"
else
    echo "import-captures: no interop captures in $rec (run testbench/interop/perftest.sh first); kept the committed ones" >&2
fi
