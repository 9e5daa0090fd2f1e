"""rocenic register map, generated from proto/src/regs.rs by
`cargo run -p rocenic-proto --bin regs-doc -- --python`; do not edit."""

ID_VALUE = 0x524F4345
VERSION_VALUE = 0x00010000
MR_CMD_WRITE = 1
MR_CMD_INVALIDATE = 2
MR_CMD_CLEAR = 16
MR_KEY_VARIANT_BITS = 8

ID = 0x0000
VERSION = 0x0004
DATAPATH_BYTES = 0x0008
CONTROL = 0x000C
MAC_LO = 0x0010
MAC_HI = 0x0014
IPV4 = 0x0018
BLOCK_DIR = 0x001C
DMA_MAX_READ = 0x0020
UDP_DPORT = 0x0024
QP_STATE = 0x0100
QPN = 0x0104
DEST_QPN = 0x0108
SQ_PSN = 0x010C
RQ_PSN = 0x0110
PMTU = 0x0114
DEST_MAC_LO = 0x0118
DEST_MAC_HI = 0x011C
DEST_IPV4 = 0x0120
UDP_SPORT = 0x0124
ACK_TIMEOUT = 0x0128
RETRY_CNT = 0x012C
ACK_REQ_EVERY = 0x0130
QP_PD = 0x0134
LAST_SYNDROME = 0x0138
RNR_RETRY = 0x013C
MIN_RNR_TIMER = 0x0140
QP_DSCP = 0x0144
QP_CMD = 0x0148
QP_TABLE_LOG = 0x014C
QP_ACCESS = 0x0150
QP_OUT_OF_SEQUENCE = 0x0154
QP_DUPLICATE_REQUEST = 0x0158
QP_PACKET_SEQ_ERR = 0x015C
QP_LOCAL_ACK_TIMEOUT_ERR = 0x0160
QP_RETRANSMITS = 0x0164
DEST_GID_0 = 0x0168
DEST_GID_1 = 0x016C
DEST_GID_2 = 0x0170
QP_IPV6 = 0x0174
QP_HOP_LIMIT = 0x0178
QP_FLOW_LABEL = 0x017C
PFC_ENABLE = 0x0180
PFC_QUANTUM_Q4 = 0x0184
PFC_WATCHDOG_CYCLES = 0x0188
PFC_WATCHDOG_RECOVERY = 0x018C
PFC_XOFF_WORDS = 0x0190
PFC_XON_WORDS = 0x0194
PFC_PAUSE_QUANTA = 0x0198
PFC_REFRESH_CYCLES = 0x019C
CNP_INTERVAL = 0x01A0
DCQCN_ENABLE = 0x01A4
DCQCN_LINE_RATE = 0x01A8
DCQCN_MIN_RATE = 0x01AC
DCQCN_RATE_AI = 0x01B0
DCQCN_RATE_HAI = 0x01B4
DCQCN_RATE_TIMER = 0x01B8
DCQCN_ALPHA_TIMER = 0x01BC
DCQCN_BYTE_COUNTER = 0x01C0
DCQCN_F = 0x01C4
DCQCN_RATE = 0x01C8
CNP_DSCP = 0x01CC
TX_ECN = 0x01D0
VLAN = 0x01D4
PRIO_TRUST = 0x01D8
RX_LOSSY_WORDS = 0x01DC
DSCP_PRIO_MAP_0 = 0x01E0
DSCP_PRIO_MAP_1 = 0x01E4
DSCP_PRIO_MAP_2 = 0x01E8
DSCP_PRIO_MAP_3 = 0x01EC
DSCP_PRIO_MAP_4 = 0x01F0
DSCP_PRIO_MAP_5 = 0x01F4
DSCP_PRIO_MAP_6 = 0x01F8
DSCP_PRIO_MAP_7 = 0x01FC
MR_BASE_LO = 0x0200
MR_BASE_HI = 0x0204
MR_LEN = 0x0208
MR_KEY = 0x020C
MR_ACCESS = 0x0210
MR_PD = 0x0214
MR_INDEX = 0x0218
MR_CMD = 0x021C
MR_TABLE_LOG = 0x0220
MR_LEN_HI = 0x0224
SQ_BASE_LO = 0x0300
SQ_BASE_HI = 0x0304
SQ_LOG_SIZE = 0x0308
SQ_PI = 0x030C
SQ_CI = 0x0310
RQ_BASE_LO = 0x0320
RQ_BASE_HI = 0x0324
RQ_LOG_SIZE = 0x0328
RQ_PI = 0x032C
RQ_CI = 0x0330
CQ_BASE_LO = 0x0340
CQ_BASE_HI = 0x0344
CQ_LOG_SIZE = 0x0348
CQ_PI = 0x034C
CQ_CI = 0x0350
CQ_ARM = 0x0354
CQ_INTERRUPTS = 0x0358
RX_FRAMES = 0x0400
RX_ROCE_PACKETS = 0x0404
RX_ICRC_ERRORS = 0x0408
RX_DROP_NOT_ROCE = 0x040C
RX_DROP_OVERFLOW = 0x0410
RX_DROP_QP = 0x0414
TX_FRAMES = 0x0418
TX_ACKS = 0x041C
RX_ACKS = 0x0420
RX_NAKS = 0x0424
RETRANSMITS = 0x0428
ACK_TIMEOUTS = 0x042C
RX_DUP_REQUESTS = 0x0430
RX_SEQ_ERRORS = 0x0434
RX_REMOTE_ACCESS_ERRORS = 0x0438
CQES_WRITTEN = 0x043C
RX_IP_CHECKSUM_ERRORS = 0x0440
RX_RNR_NAKS = 0x0444
RNR_RETRY_EXC = 0x0448
RX_SEQ_NAKS = 0x044C
RX_REMOTE_ACCESS_NAKS = 0x0450
RX_INVALID_REQUEST_NAKS = 0x0454
TX_RNR_NAKS = 0x0458
RX_ARP_REQUESTS = 0x045C
TX_ARP_REPLIES = 0x0460
RX_PAUSE_FRAMES = 0x0464
RX_PAUSE_DURATION = 0x0468
PFC_WATCHDOG_EVENTS = 0x046C
TX_PFC_XOFF = 0x0470
TX_PFC_XON = 0x0474
ECN_MARKED_ROCE_PACKETS = 0x0478
NP_CNP_SENT = 0x047C
RP_CNP_HANDLED = 0x0480
DCQCN_RATE_DECREASES = 0x0484
WQE_PUSHES = 0x0488
QP_CONTEXT_SWITCHES = 0x048C
DOORBELL_OVERFLOWS = 0x0490
QP_ERR_EVENTS = 0x0494
RX_REMOTE_INVALIDATIONS = 0x0498
RX_INVALIDATE_ERRORS = 0x049C
RX_DROP_DST_MAC = 0x04A0
RX_DROP_ETHERTYPE = 0x04A4
RX_DROP_IP_HEADER = 0x04A8
RX_DROP_DST_IP = 0x04AC
RX_DROP_UDP_PORT = 0x04B0
RX_DROP_LENGTH = 0x04B4
RX_DROP_DISABLED = 0x04B8
RX_DROP_VLAN = 0x04BC
RX_DROP_LOSSY = 0x04C0
IMPLIED_NAK_SEQ_ERR = 0x04C4
RX_NDP_SOLICITATIONS = 0x04C8
TX_NDP_ADVERTISEMENTS = 0x04CC
RX_FCS_ERRORS = 0x04D0
RX_DROP_SRC_ADDR = 0x04D4
RP_CNP_IGNORED = 0x04D8
RX_PRIO0_PAUSE = 0x04DC
RX_PRIO1_PAUSE = 0x04E0
RX_PRIO2_PAUSE = 0x04E4
RX_PRIO3_PAUSE = 0x04E8
RX_PRIO4_PAUSE = 0x04EC
RX_PRIO5_PAUSE = 0x04F0
RX_PRIO6_PAUSE = 0x04F4
RX_PRIO7_PAUSE = 0x04F8
TX_PRIO0_PAUSE = 0x0500
TX_PRIO1_PAUSE = 0x0504
TX_PRIO2_PAUSE = 0x0508
TX_PRIO3_PAUSE = 0x050C
TX_PRIO4_PAUSE = 0x0510
TX_PRIO5_PAUSE = 0x0514
TX_PRIO6_PAUSE = 0x0518
TX_PRIO7_PAUSE = 0x051C
WQE_PUSH_0 = 0x0600
WQE_PUSH_1 = 0x0604
WQE_PUSH_2 = 0x0608
WQE_PUSH_3 = 0x060C
WQE_PUSH_4 = 0x0610
WQE_PUSH_5 = 0x0614
WQE_PUSH_6 = 0x0618
WQE_PUSH_7 = 0x061C
WQE_PUSH_8 = 0x0620
WQE_PUSH_9 = 0x0624
WQE_PUSH_10 = 0x0628
WQE_PUSH_11 = 0x062C
WQE_PUSH_12 = 0x0630
WQE_PUSH_13 = 0x0634
WQE_PUSH_14 = 0x0638
WQE_PUSH_15 = 0x063C
WQE_PUSH_DB = 0x0640
GID_0_0 = 0x0680
GID_0_1 = 0x0684
GID_0_2 = 0x0688
GID_0_3 = 0x068C
GID_1_0 = 0x0690
GID_1_1 = 0x0694
GID_1_2 = 0x0698
GID_1_3 = 0x069C
GID_2_0 = 0x06A0
GID_2_1 = 0x06A4
GID_2_2 = 0x06A8
GID_2_3 = 0x06AC
GID_3_0 = 0x06B0
GID_3_1 = 0x06B4
GID_3_2 = 0x06B8
GID_3_3 = 0x06BC
VLAN_1 = 0x06C0
VLAN_2 = 0x06C4
VLAN_3 = 0x06C8
QP_VLAN = 0x06CC
QP_MAX_RD_ATOMIC = 0x06D0
TX_STATUS = 0x06D4
DCQCN_LIMITER_QPN_0 = 0x06D8
DCQCN_LIMITER_QPN_1 = 0x06DC
DCQCN_LIMITER_QPN_2 = 0x06E0
DCQCN_LIMITER_QPN_3 = 0x06E4
DCQCN_LIMITER_RATE_0 = 0x06E8
DCQCN_LIMITER_RATE_1 = 0x06EC
DCQCN_LIMITER_RATE_2 = 0x06F0
DCQCN_LIMITER_RATE_3 = 0x06F4

# Reset value and access of each register, by name.
RESET = {
    "ID": 0x524F4345,
    "VERSION": 0x10000,
    "DATAPATH_BYTES": 0x0,
    "CONTROL": 0x0,
    "MAC_LO": 0x0,
    "MAC_HI": 0x0,
    "IPV4": 0x0,
    "BLOCK_DIR": 0x40,
    "DMA_MAX_READ": 0x200,
    "UDP_DPORT": 0x12B7,
    "QP_STATE": 0x0,
    "QPN": 0x0,
    "DEST_QPN": 0x0,
    "SQ_PSN": 0x0,
    "RQ_PSN": 0x0,
    "PMTU": 0xA,
    "DEST_MAC_LO": 0x0,
    "DEST_MAC_HI": 0x0,
    "DEST_IPV4": 0x0,
    "UDP_SPORT": 0xC000,
    "ACK_TIMEOUT": 0x186A0,
    "RETRY_CNT": 0x7,
    "ACK_REQ_EVERY": 0x10,
    "QP_PD": 0x0,
    "LAST_SYNDROME": 0x0,
    "RNR_RETRY": 0x7,
    "MIN_RNR_TIMER": 0x1,
    "QP_DSCP": 0x0,
    "QP_CMD": 0x0,
    "QP_TABLE_LOG": 0x0,
    "QP_ACCESS": 0x0,
    "QP_OUT_OF_SEQUENCE": 0x0,
    "QP_DUPLICATE_REQUEST": 0x0,
    "QP_PACKET_SEQ_ERR": 0x0,
    "QP_LOCAL_ACK_TIMEOUT_ERR": 0x0,
    "QP_RETRANSMITS": 0x0,
    "DEST_GID_0": 0x0,
    "DEST_GID_1": 0x0,
    "DEST_GID_2": 0x0,
    "QP_IPV6": 0x0,
    "QP_HOP_LIMIT": 0x40,
    "QP_FLOW_LABEL": 0x0,
    "PFC_ENABLE": 0x8,
    "PFC_QUANTUM_Q4": 0x80,
    "PFC_WATCHDOG_CYCLES": 0x0,
    "PFC_WATCHDOG_RECOVERY": 0xF4240,
    "PFC_XOFF_WORDS": 0x0,
    "PFC_XON_WORDS": 0x0,
    "PFC_PAUSE_QUANTA": 0xFFFF,
    "PFC_REFRESH_CYCLES": 0x8000,
    "CNP_INTERVAL": 0x1E85,
    "DCQCN_ENABLE": 0x0,
    "DCQCN_LINE_RATE": 0x800,
    "DCQCN_MIN_RATE": 0x10,
    "DCQCN_RATE_AI": 0x14,
    "DCQCN_RATE_HAI": 0xC8,
    "DCQCN_RATE_TIMER": 0x2192,
    "DCQCN_ALPHA_TIMER": 0x2192,
    "DCQCN_BYTE_COUNTER": 0x989680,
    "DCQCN_F": 0x5,
    "DCQCN_RATE": 0x800,
    "CNP_DSCP": 0x30,
    "TX_ECN": 0x1,
    "VLAN": 0x0,
    "PRIO_TRUST": 0x1,
    "RX_LOSSY_WORDS": 0x0,
    "DSCP_PRIO_MAP_0": 0x0,
    "DSCP_PRIO_MAP_1": 0x11111111,
    "DSCP_PRIO_MAP_2": 0x22222222,
    "DSCP_PRIO_MAP_3": 0x33333333,
    "DSCP_PRIO_MAP_4": 0x44444444,
    "DSCP_PRIO_MAP_5": 0x55555555,
    "DSCP_PRIO_MAP_6": 0x66666666,
    "DSCP_PRIO_MAP_7": 0x77777777,
    "MR_BASE_LO": 0x0,
    "MR_BASE_HI": 0x0,
    "MR_LEN": 0x0,
    "MR_KEY": 0x0,
    "MR_ACCESS": 0x0,
    "MR_PD": 0x0,
    "MR_INDEX": 0x0,
    "MR_CMD": 0x0,
    "MR_TABLE_LOG": 0x0,
    "MR_LEN_HI": 0x0,
    "SQ_BASE_LO": 0x0,
    "SQ_BASE_HI": 0x0,
    "SQ_LOG_SIZE": 0x0,
    "SQ_PI": 0x0,
    "SQ_CI": 0x0,
    "RQ_BASE_LO": 0x0,
    "RQ_BASE_HI": 0x0,
    "RQ_LOG_SIZE": 0x0,
    "RQ_PI": 0x0,
    "RQ_CI": 0x0,
    "CQ_BASE_LO": 0x0,
    "CQ_BASE_HI": 0x0,
    "CQ_LOG_SIZE": 0x0,
    "CQ_PI": 0x0,
    "CQ_CI": 0x0,
    "CQ_ARM": 0x0,
    "CQ_INTERRUPTS": 0x0,
    "RX_FRAMES": 0x0,
    "RX_ROCE_PACKETS": 0x0,
    "RX_ICRC_ERRORS": 0x0,
    "RX_DROP_NOT_ROCE": 0x0,
    "RX_DROP_OVERFLOW": 0x0,
    "RX_DROP_QP": 0x0,
    "TX_FRAMES": 0x0,
    "TX_ACKS": 0x0,
    "RX_ACKS": 0x0,
    "RX_NAKS": 0x0,
    "RETRANSMITS": 0x0,
    "ACK_TIMEOUTS": 0x0,
    "RX_DUP_REQUESTS": 0x0,
    "RX_SEQ_ERRORS": 0x0,
    "RX_REMOTE_ACCESS_ERRORS": 0x0,
    "CQES_WRITTEN": 0x0,
    "RX_IP_CHECKSUM_ERRORS": 0x0,
    "RX_RNR_NAKS": 0x0,
    "RNR_RETRY_EXC": 0x0,
    "RX_SEQ_NAKS": 0x0,
    "RX_REMOTE_ACCESS_NAKS": 0x0,
    "RX_INVALID_REQUEST_NAKS": 0x0,
    "TX_RNR_NAKS": 0x0,
    "RX_ARP_REQUESTS": 0x0,
    "TX_ARP_REPLIES": 0x0,
    "RX_PAUSE_FRAMES": 0x0,
    "RX_PAUSE_DURATION": 0x0,
    "PFC_WATCHDOG_EVENTS": 0x0,
    "TX_PFC_XOFF": 0x0,
    "TX_PFC_XON": 0x0,
    "ECN_MARKED_ROCE_PACKETS": 0x0,
    "NP_CNP_SENT": 0x0,
    "RP_CNP_HANDLED": 0x0,
    "DCQCN_RATE_DECREASES": 0x0,
    "WQE_PUSHES": 0x0,
    "QP_CONTEXT_SWITCHES": 0x0,
    "DOORBELL_OVERFLOWS": 0x0,
    "QP_ERR_EVENTS": 0x0,
    "RX_REMOTE_INVALIDATIONS": 0x0,
    "RX_INVALIDATE_ERRORS": 0x0,
    "RX_DROP_DST_MAC": 0x0,
    "RX_DROP_ETHERTYPE": 0x0,
    "RX_DROP_IP_HEADER": 0x0,
    "RX_DROP_DST_IP": 0x0,
    "RX_DROP_UDP_PORT": 0x0,
    "RX_DROP_LENGTH": 0x0,
    "RX_DROP_DISABLED": 0x0,
    "RX_DROP_VLAN": 0x0,
    "RX_DROP_LOSSY": 0x0,
    "IMPLIED_NAK_SEQ_ERR": 0x0,
    "RX_NDP_SOLICITATIONS": 0x0,
    "TX_NDP_ADVERTISEMENTS": 0x0,
    "RX_FCS_ERRORS": 0x0,
    "RX_DROP_SRC_ADDR": 0x0,
    "RP_CNP_IGNORED": 0x0,
    "RX_PRIO0_PAUSE": 0x0,
    "RX_PRIO1_PAUSE": 0x0,
    "RX_PRIO2_PAUSE": 0x0,
    "RX_PRIO3_PAUSE": 0x0,
    "RX_PRIO4_PAUSE": 0x0,
    "RX_PRIO5_PAUSE": 0x0,
    "RX_PRIO6_PAUSE": 0x0,
    "RX_PRIO7_PAUSE": 0x0,
    "TX_PRIO0_PAUSE": 0x0,
    "TX_PRIO1_PAUSE": 0x0,
    "TX_PRIO2_PAUSE": 0x0,
    "TX_PRIO3_PAUSE": 0x0,
    "TX_PRIO4_PAUSE": 0x0,
    "TX_PRIO5_PAUSE": 0x0,
    "TX_PRIO6_PAUSE": 0x0,
    "TX_PRIO7_PAUSE": 0x0,
    "WQE_PUSH_0": 0x0,
    "WQE_PUSH_1": 0x0,
    "WQE_PUSH_2": 0x0,
    "WQE_PUSH_3": 0x0,
    "WQE_PUSH_4": 0x0,
    "WQE_PUSH_5": 0x0,
    "WQE_PUSH_6": 0x0,
    "WQE_PUSH_7": 0x0,
    "WQE_PUSH_8": 0x0,
    "WQE_PUSH_9": 0x0,
    "WQE_PUSH_10": 0x0,
    "WQE_PUSH_11": 0x0,
    "WQE_PUSH_12": 0x0,
    "WQE_PUSH_13": 0x0,
    "WQE_PUSH_14": 0x0,
    "WQE_PUSH_15": 0x0,
    "WQE_PUSH_DB": 0x0,
    "GID_0_0": 0x0,
    "GID_0_1": 0x0,
    "GID_0_2": 0x0,
    "GID_0_3": 0x0,
    "GID_1_0": 0x0,
    "GID_1_1": 0x0,
    "GID_1_2": 0x0,
    "GID_1_3": 0x0,
    "GID_2_0": 0x0,
    "GID_2_1": 0x0,
    "GID_2_2": 0x0,
    "GID_2_3": 0x0,
    "GID_3_0": 0x0,
    "GID_3_1": 0x0,
    "GID_3_2": 0x0,
    "GID_3_3": 0x0,
    "VLAN_1": 0x0,
    "VLAN_2": 0x0,
    "VLAN_3": 0x0,
    "QP_VLAN": 0x0,
    "QP_MAX_RD_ATOMIC": 0x1,
    "TX_STATUS": 0x10006200,
    "DCQCN_LIMITER_QPN_0": 0x0,
    "DCQCN_LIMITER_QPN_1": 0x0,
    "DCQCN_LIMITER_QPN_2": 0x0,
    "DCQCN_LIMITER_QPN_3": 0x0,
    "DCQCN_LIMITER_RATE_0": 0x800,
    "DCQCN_LIMITER_RATE_1": 0x800,
    "DCQCN_LIMITER_RATE_2": 0x800,
    "DCQCN_LIMITER_RATE_3": 0x800,
}
ACCESS = {
    "ID": "ro",
    "VERSION": "ro",
    "DATAPATH_BYTES": "ro",
    "CONTROL": "rw",
    "MAC_LO": "rw",
    "MAC_HI": "rw",
    "IPV4": "rw",
    "BLOCK_DIR": "const",
    "DMA_MAX_READ": "rw",
    "UDP_DPORT": "rw",
    "QP_STATE": "rw_core",
    "QPN": "rw",
    "DEST_QPN": "rw",
    "SQ_PSN": "rw_core",
    "RQ_PSN": "rw_core",
    "PMTU": "rw",
    "DEST_MAC_LO": "rw",
    "DEST_MAC_HI": "rw",
    "DEST_IPV4": "rw",
    "UDP_SPORT": "rw",
    "ACK_TIMEOUT": "rw",
    "RETRY_CNT": "rw",
    "ACK_REQ_EVERY": "rw",
    "QP_PD": "rw",
    "LAST_SYNDROME": "ro",
    "RNR_RETRY": "rw",
    "MIN_RNR_TIMER": "rw",
    "QP_DSCP": "rw",
    "QP_CMD": "rw_core",
    "QP_TABLE_LOG": "ro",
    "QP_ACCESS": "rw",
    "QP_OUT_OF_SEQUENCE": "ro",
    "QP_DUPLICATE_REQUEST": "ro",
    "QP_PACKET_SEQ_ERR": "ro",
    "QP_LOCAL_ACK_TIMEOUT_ERR": "ro",
    "QP_RETRANSMITS": "ro",
    "DEST_GID_0": "rw",
    "DEST_GID_1": "rw",
    "DEST_GID_2": "rw",
    "QP_IPV6": "rw",
    "QP_HOP_LIMIT": "rw",
    "QP_FLOW_LABEL": "rw",
    "PFC_ENABLE": "rw",
    "PFC_QUANTUM_Q4": "rw",
    "PFC_WATCHDOG_CYCLES": "rw",
    "PFC_WATCHDOG_RECOVERY": "rw",
    "PFC_XOFF_WORDS": "rw",
    "PFC_XON_WORDS": "rw",
    "PFC_PAUSE_QUANTA": "rw",
    "PFC_REFRESH_CYCLES": "rw",
    "CNP_INTERVAL": "rw",
    "DCQCN_ENABLE": "rw",
    "DCQCN_LINE_RATE": "rw",
    "DCQCN_MIN_RATE": "rw",
    "DCQCN_RATE_AI": "rw",
    "DCQCN_RATE_HAI": "rw",
    "DCQCN_RATE_TIMER": "rw",
    "DCQCN_ALPHA_TIMER": "rw",
    "DCQCN_BYTE_COUNTER": "rw",
    "DCQCN_F": "rw",
    "DCQCN_RATE": "ro",
    "CNP_DSCP": "rw",
    "TX_ECN": "rw",
    "VLAN": "rw",
    "PRIO_TRUST": "rw",
    "RX_LOSSY_WORDS": "rw",
    "DSCP_PRIO_MAP_0": "rw",
    "DSCP_PRIO_MAP_1": "rw",
    "DSCP_PRIO_MAP_2": "rw",
    "DSCP_PRIO_MAP_3": "rw",
    "DSCP_PRIO_MAP_4": "rw",
    "DSCP_PRIO_MAP_5": "rw",
    "DSCP_PRIO_MAP_6": "rw",
    "DSCP_PRIO_MAP_7": "rw",
    "MR_BASE_LO": "rw",
    "MR_BASE_HI": "rw",
    "MR_LEN": "rw",
    "MR_KEY": "rw",
    "MR_ACCESS": "rw",
    "MR_PD": "rw",
    "MR_INDEX": "rw",
    "MR_CMD": "rw_core",
    "MR_TABLE_LOG": "ro",
    "MR_LEN_HI": "rw",
    "SQ_BASE_LO": "rw",
    "SQ_BASE_HI": "rw",
    "SQ_LOG_SIZE": "rw",
    "SQ_PI": "rw",
    "SQ_CI": "rw_core",
    "RQ_BASE_LO": "rw",
    "RQ_BASE_HI": "rw",
    "RQ_LOG_SIZE": "rw",
    "RQ_PI": "rw",
    "RQ_CI": "rw_core",
    "CQ_BASE_LO": "rw",
    "CQ_BASE_HI": "rw",
    "CQ_LOG_SIZE": "rw",
    "CQ_PI": "counter",
    "CQ_CI": "rw",
    "CQ_ARM": "rw_core",
    "CQ_INTERRUPTS": "counter",
    "RX_FRAMES": "counter",
    "RX_ROCE_PACKETS": "counter",
    "RX_ICRC_ERRORS": "counter",
    "RX_DROP_NOT_ROCE": "counter",
    "RX_DROP_OVERFLOW": "counter",
    "RX_DROP_QP": "counter",
    "TX_FRAMES": "counter",
    "TX_ACKS": "counter",
    "RX_ACKS": "counter",
    "RX_NAKS": "counter",
    "RETRANSMITS": "counter",
    "ACK_TIMEOUTS": "counter",
    "RX_DUP_REQUESTS": "counter",
    "RX_SEQ_ERRORS": "counter",
    "RX_REMOTE_ACCESS_ERRORS": "counter",
    "CQES_WRITTEN": "counter",
    "RX_IP_CHECKSUM_ERRORS": "counter",
    "RX_RNR_NAKS": "counter",
    "RNR_RETRY_EXC": "counter",
    "RX_SEQ_NAKS": "counter",
    "RX_REMOTE_ACCESS_NAKS": "counter",
    "RX_INVALID_REQUEST_NAKS": "counter",
    "TX_RNR_NAKS": "counter",
    "RX_ARP_REQUESTS": "counter",
    "TX_ARP_REPLIES": "counter",
    "RX_PAUSE_FRAMES": "counter",
    "RX_PAUSE_DURATION": "counter",
    "PFC_WATCHDOG_EVENTS": "counter",
    "TX_PFC_XOFF": "counter",
    "TX_PFC_XON": "counter",
    "ECN_MARKED_ROCE_PACKETS": "counter",
    "NP_CNP_SENT": "counter",
    "RP_CNP_HANDLED": "counter",
    "DCQCN_RATE_DECREASES": "counter",
    "WQE_PUSHES": "counter",
    "QP_CONTEXT_SWITCHES": "counter",
    "DOORBELL_OVERFLOWS": "counter",
    "QP_ERR_EVENTS": "counter",
    "RX_REMOTE_INVALIDATIONS": "counter",
    "RX_INVALIDATE_ERRORS": "counter",
    "RX_DROP_DST_MAC": "counter",
    "RX_DROP_ETHERTYPE": "counter",
    "RX_DROP_IP_HEADER": "counter",
    "RX_DROP_DST_IP": "counter",
    "RX_DROP_UDP_PORT": "counter",
    "RX_DROP_LENGTH": "counter",
    "RX_DROP_DISABLED": "counter",
    "RX_DROP_VLAN": "counter",
    "RX_DROP_LOSSY": "counter",
    "IMPLIED_NAK_SEQ_ERR": "counter",
    "RX_NDP_SOLICITATIONS": "counter",
    "TX_NDP_ADVERTISEMENTS": "counter",
    "RX_FCS_ERRORS": "counter",
    "RX_DROP_SRC_ADDR": "counter",
    "RP_CNP_IGNORED": "counter",
    "RX_PRIO0_PAUSE": "counter",
    "RX_PRIO1_PAUSE": "counter",
    "RX_PRIO2_PAUSE": "counter",
    "RX_PRIO3_PAUSE": "counter",
    "RX_PRIO4_PAUSE": "counter",
    "RX_PRIO5_PAUSE": "counter",
    "RX_PRIO6_PAUSE": "counter",
    "RX_PRIO7_PAUSE": "counter",
    "TX_PRIO0_PAUSE": "counter",
    "TX_PRIO1_PAUSE": "counter",
    "TX_PRIO2_PAUSE": "counter",
    "TX_PRIO3_PAUSE": "counter",
    "TX_PRIO4_PAUSE": "counter",
    "TX_PRIO5_PAUSE": "counter",
    "TX_PRIO6_PAUSE": "counter",
    "TX_PRIO7_PAUSE": "counter",
    "WQE_PUSH_0": "rw",
    "WQE_PUSH_1": "rw",
    "WQE_PUSH_2": "rw",
    "WQE_PUSH_3": "rw",
    "WQE_PUSH_4": "rw",
    "WQE_PUSH_5": "rw",
    "WQE_PUSH_6": "rw",
    "WQE_PUSH_7": "rw",
    "WQE_PUSH_8": "rw",
    "WQE_PUSH_9": "rw",
    "WQE_PUSH_10": "rw",
    "WQE_PUSH_11": "rw",
    "WQE_PUSH_12": "rw",
    "WQE_PUSH_13": "rw",
    "WQE_PUSH_14": "rw",
    "WQE_PUSH_15": "rw",
    "WQE_PUSH_DB": "rw_core",
    "GID_0_0": "rw",
    "GID_0_1": "rw",
    "GID_0_2": "rw",
    "GID_0_3": "rw",
    "GID_1_0": "rw",
    "GID_1_1": "rw",
    "GID_1_2": "rw",
    "GID_1_3": "rw",
    "GID_2_0": "rw",
    "GID_2_1": "rw",
    "GID_2_2": "rw",
    "GID_2_3": "rw",
    "GID_3_0": "rw",
    "GID_3_1": "rw",
    "GID_3_2": "rw",
    "GID_3_3": "rw",
    "VLAN_1": "rw",
    "VLAN_2": "rw",
    "VLAN_3": "rw",
    "QP_VLAN": "rw",
    "QP_MAX_RD_ATOMIC": "rw",
    "TX_STATUS": "ro",
    "DCQCN_LIMITER_QPN_0": "ro",
    "DCQCN_LIMITER_QPN_1": "ro",
    "DCQCN_LIMITER_QPN_2": "ro",
    "DCQCN_LIMITER_QPN_3": "ro",
    "DCQCN_LIMITER_RATE_0": "ro",
    "DCQCN_LIMITER_RATE_1": "ro",
    "DCQCN_LIMITER_RATE_2": "ro",
    "DCQCN_LIMITER_RATE_3": "ro",
}

# The register-block directory: (header offset, value) of every header word.
BLOCK_HEADER_WORDS = [
    (0x0040, 0x00010001),
    (0x0044, 0x00000050),
    (0x0048, 0x00000100),
    (0x004C, 0x00000000),
    (0x0050, 0x00020003),
    (0x0054, 0x00000060),
    (0x0058, 0x01000080),
    (0x005C, 0x00000001),
    (0x0060, 0x00030001),
    (0x0064, 0x00000070),
    (0x0068, 0x01800080),
    (0x006C, 0x0000007F),
    (0x0070, 0x00040003),
    (0x0074, 0x00000080),
    (0x0078, 0x02000028),
    (0x007C, 0x00000000),
    (0x0080, 0x00050001),
    (0x0084, 0x00000090),
    (0x0088, 0x03000060),
    (0x008C, 0x0000000F),
    (0x0090, 0x00060001),
    (0x0094, 0x000000A0),
    (0x0098, 0x04000200),
    (0x009C, 0x00000047),
    (0x00A0, 0x00070001),
    (0x00A4, 0x000000B0),
    (0x00A8, 0x06000044),
    (0x00AC, 0x00000040),
    (0x00B0, 0x00080001),
    (0x00B4, 0x000000C0),
    (0x00B8, 0x06800040),
    (0x00BC, 0x00000004),
    (0x00C0, 0x00090001),
    (0x00C4, 0x000000D0),
    (0x00C8, 0x06C00010),
    (0x00CC, 0x00000004),
    (0x00D0, 0x000A0002),
    (0x00D4, 0x000000E0),
    (0x00D8, 0x06D00008),
    (0x00DC, 0x00000404),
    (0x00E0, 0x000B0001),
    (0x00E4, 0x00000000),
    (0x00E8, 0x06D80020),
    (0x00EC, 0x00000004),
]
