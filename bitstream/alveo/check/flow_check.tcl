# Runs flow.tcl for one board under tclsh with the Vivado commands stubbed (vivado_stubs.tcl), then checks
# what it did. Used by check.sh; prints one line per problem and exits 1 if there is any.
#
#   tclsh flow_check.tcl <board-dir> <out-dir>
#
# Checks: flow.tcl runs to the end (no Tcl error, no unknown command, no unknown option); every file it
# reads exists; every module rocenic_alveo.v instantiates is either defined in a Verilog file the flow reads
# or is vendor IP/primitive (a module of ip_stubs.v), and then, if it is IP, made by create_ip for this
# configuration; every IP made is one the wrapper knows; every port board.xdc constrains is a wrapper port.

# Warm up Tcl's lazily loaded `clock` before the stubs take over `source` and `unknown`.
clock format 0 -format %Y -gmt 1

set check_dir [file dirname [file normalize [info script]]]
set alveo_dir [file dirname $check_dir]
set board_arg [file normalize [lindex $argv 0]]
set out_arg [file normalize [lindex $argv 1]]
set problems {}

source [file join $check_dir vivado_stubs.tcl]

set argv [list $board_arg $out_arg]
set argc 2
if {[catch {::stub::tcl_source [file join $alveo_dir flow.tcl]} msg]} {
    lappend problems "flow.tcl stopped: $msg"
}
foreach e $::stub::errors { lappend problems $e }

proc read_text {path} {
    set fd [open $path r]
    set t [read $fd]
    close $fd
    return $t
}

# Modules defined in a Verilog text (escaped identifiers such as `top$arp` included).
proc defined_modules {text} {
    set mods {}
    foreach {- m} [regexp -all -inline -line {^\s*module\s+([^\s(#;]+)} $text] { lappend mods $m }
    return $mods
}

# Module instantiations in the wrapper: "<module> [#(...)] <instance> (" at the start of a line, with the
# line numbers, so that instances inside the CORE_ON_MAC_CLK branch can be told apart.
proc instances {text} {
    set keywords {module input output inout wire reg assign always if else for case begin end generate
        endgenerate localparam parameter genvar integer initial function task endmodule default}
    set found {}
    set n 0
    foreach line [split $text \n] {
        incr n
        if {[regexp {^\s*([A-Za-z_][A-Za-z0-9_]*)\s+(?:#\s*\(.*\)\s*)?([A-Za-z_][A-Za-z0-9_]*)\s*\(} $line - mod inst]
                && $mod ni $keywords} {
            lappend found [list $mod $inst $n]
        }
    }
    return $found
}

set wrapper_path [file join $alveo_dir rocenic_alveo.v]
set wrapper [read_text $wrapper_path]
set vendor [defined_modules [read_text [file join $check_dir ip_stubs.v]]]

set defined {}
foreach fr $::stub::files {
    lassign $fr cmd path
    if {$cmd eq "read_verilog" && [file isfile $path]} {
        set defined [concat $defined [defined_modules [read_text $path]]]
    }
}
if {"rocenic_alveo" ni $defined} { lappend problems "rocenic_alveo.v is not among the Verilog files read" }

# The generate branch that exists only when the core is on the MAC clock.
set lines [split $wrapper \n]
set mac_from [lsearch -regexp $lines {generate if \(CORE_ON_MAC_CLK\)}]
set mac_to [lsearch -regexp $lines {end else begin : pcie_direct}]
set on_mac [expr {[info exists core_clock] && $core_clock eq "mac"}]

foreach i [instances $wrapper] {
    lassign $i mod inst line
    if {$mod in $defined} continue
    if {$mod ni $vendor} {
        lappend problems "rocenic_alveo.v:$line: module $mod (instance $inst) is in no Verilog file the flow reads"
        continue
    }
    if {![string match rocenic_* $mod]} continue        ;# a primitive, from Vivado's library
    set conditional [expr {$line > $mac_from + 1 && $line <= $mac_to}]
    if {(!$conditional || $on_mac) && $mod ni $::stub::ips} {
        lappend problems "rocenic_alveo.v:$line: IP $mod (instance $inst) is not made by create_ip"
    }
}
foreach ip $::stub::ips {
    if {$ip ni $vendor} { lappend problems "create_ip makes $ip, which rocenic_alveo.v does not know" }
}

# The module header ends at the first ");" — take ports from the header only.
set header [string range $wrapper [string first "module rocenic_alveo" $wrapper] [string first ");" $wrapper]]
set wrapper_ports {}
foreach {- p} [regexp -all -inline {(?:input|output)\s+wire\s+(?:\[[^\]]*\]\s*)?([A-Za-z_][A-Za-z0-9_]*)} $header] {
    lappend wrapper_ports $p
}
foreach p [lsort -unique $::stub::ports] {
    if {$p ni $wrapper_ports} { lappend problems "board.xdc constrains port $p, which rocenic_alveo has not" }
}
if {[info exists hbm_cattrip] && $hbm_cattrip && "hbm_cattrip" ni $::stub::ports} {
    lappend problems "config.tcl says hbm_cattrip but board.xdc does not place it"
}

set ncalls [llength $::stub::calls]
if {[lsearch -index 0 $::stub::calls write_bitstream] < 0} { lappend problems "flow.tcl never reached write_bitstream" }
if {[llength $problems]} {
    foreach p $problems { puts "  $p" }
    exit 1
}
puts "  flow ran to write_bitstream: $ncalls Vivado calls, [llength $::stub::files] files read, IP: [join $::stub::ips {, }]"
exit 0
