#!/usr/bin/env bash
# Rebuilds the conformance cases made from captures (testbench/conformance/cases/capture_*), on purpose:
# the NIC takes one side's place, the other side's frames are replayed, the captured side's frames are
# the reference. Reads testbench/captures; the cases it writes are committed,
# so replaying them (`rocenic conformance replay`, scripts/test.sh) never needs the captures.
set -euo pipefail
cd "$(dirname "$0")/../.."
caps=${ROCENIC_CAPTURES:-testbench/captures}
import() { cargo run --release -q -p rocenic-tools --bin rocenic -- conformance import "$@"; }
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
    # Role B: rxe's perftest is the client, so the NIC takes the requester's place.
    import "$rec/write-bw-B-1024-64.pcap" --nic-ip 10.0.0.1 --frames 300 --name capture_rxe_ib_write_bw_client_as_rxe \
        --rule "9.7.6: in rdma_rxe's place as ib_write_bw's client (rxe's frames as reference): 64-byte RDMA WRITEs posted in bursts go out at rxe's PSNs and complete on the peer's ACKs, coalesced ones included"
    import "$rec/send-bw-B-1024-64.pcap" --nic-ip 10.0.0.1 --frames 300 --name capture_rxe_ib_send_bw_client_as_rxe \
        --rule "9.7.6: in rdma_rxe's place as ib_send_bw's client (rxe's frames as reference): 64-byte SENDs posted in bursts go out at rxe's PSNs and complete on the peer's ACKs"
    import "$rec/read-bw-B-1024-64.pcap" --nic-ip 10.0.0.1 --frames 200 --name capture_rxe_ib_read_bw_client_as_rxe \
        --rule "9.7.5.1.5, 9.4.3: in rdma_rxe's place as ib_read_bw's client (rxe's frames as reference): 64-byte RDMA READ requests go out at rxe's PSNs, several outstanding, and each READ RESPONSE ONLY lands in its local buffer"
    import "$rec/atomic-bw-B-1024-8.pcap" --nic-ip 10.0.0.1 --frames 200 --name capture_rxe_ib_atomic_bw_client_as_rxe \
        --rule "9.4.5: in rdma_rxe's place as ib_atomic_bw's client (rxe's frames as reference): FETCH_ADDs go out at rxe's PSNs, several outstanding, and each ATOMIC ACKNOWLEDGE's original value lands in its local word"
    import "$rec/atomic-bw-A-1024-8.pcap" --nic-ip 10.0.0.1 --frames 200 --name capture_rxe_ib_atomic_bw_server_as_rxe \
        --rule "9.4.5, 9.7.5: in rdma_rxe's place as ib_atomic_bw's server (rxe's frames as reference): each FETCH_ADD is executed once and answered with an ATOMIC ACKNOWLEDGE carrying the value rxe returned"
    import "$rec/write-lat-A-1024-64.pcap" --nic-ip 10.0.0.1 --frames 300 --name capture_rxe_ib_write_lat_as_rxe \
        --rule "9.7.5, 9.7.6: in rdma_rxe's place in ib_write_lat (rxe's frames as reference): 64-byte RDMA WRITEs both ways, each side's requests at its PSNs and each ACKed with its PSN and MSN; a WRITE rxe sent again on its own timer is left out"
    if [[ -f $rec/read-bw-B-1024-65536.pcap ]]; then
        import "$rec/read-bw-B-1024-65536.pcap" --nic-ip 10.0.0.1 --frames 200 --name capture_rxe_ib_read_bw_64k_client_as_rxe \
            --rule "9.7.5.1.5: in rdma_rxe's place as ib_read_bw's client with 64 KiB READs (rxe's frames as reference): each request asks for 65536 bytes and its 64 responses land in order in one local buffer"
        import "$rec/send-bw-A-1024-65536.pcap" --nic-ip 10.0.0.1 --frames 200 --name capture_rxe_ib_send_bw_64k_as_rxe \
            --rule "9.7.5, 9.5: in rdma_rxe's place as ib_send_bw's server with 64 KiB SENDs (rxe's frames as reference): FIRST, MIDDLE and LAST packets of each SEND land in one receive, ACKed as rxe ACKed them"
        import "$rec/write-bw-A-1024-65536.pcap" --nic-ip 10.0.0.1 --frames 600 --name capture_rxe_ib_write_bw_64k_as_rxe \
            --rule "9.7.5: in rdma_rxe's place as ib_write_bw's server with 64 KiB WRITEs (rxe's frames as reference): every packet of each WRITE lands at its RETH address plus its offset, ACKed as rxe ACKed them"
    fi
else
    echo "import-captures: no interop captures in $rec (run testbench/interop/perftest.sh first); kept the committed ones" >&2
fi
