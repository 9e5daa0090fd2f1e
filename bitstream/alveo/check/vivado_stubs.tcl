# Stand-ins for the Vivado Tcl commands that flow.tcl and the XDC files use, so that check.sh can run the
# flow under plain tclsh. Only for that check: nothing here resembles what Vivado does beyond the command
# line. Each stub knows its options (an unknown option is an error, so a typo in flow.tcl fails the check),
# records its call in ::stub::calls, and the file readers (read_verilog, read_xdc, source) record the file
# and fail on a missing one. read_xdc also runs the XDC through these stubs. Any command that is neither a
# Tcl built-in nor stubbed here is an error ("unknown command").

namespace eval ::stub {
    variable calls {}          ;# every stubbed call: {command args...}
    variable files {}          ;# {command path} per file read
    variable errors {}         ;# problems found while running (missing files, bad arguments)
    variable ips {}            ;# module names made by create_ip
    variable ports {}          ;# port names asked for by get_ports (from the XDC files)
    variable current ""        ;# the XDC being read, for messages
}

# Defines stub `name`. spec: option -> 1 if it takes a value, 0 if it is a flag. npos: {min max} positional
# arguments (max -1: any). body: run after parsing with `opts` (dict) and `pos` (list) set; its result is
# the command's result.
proc ::stub::define {name spec npos {body {}}} {
    proc ::$name args [format {
        set spec {%s}
        set npos {%s}
        set opts [dict create]
        set pos {}
        for {set i 0} {$i < [llength $args]} {incr i} {
            set a [lindex $args $i]
            if {[string match -* $a] && ![string is double -strict $a]} {
                if {![dict exists $spec $a]} {
                    error "%s: unknown option $a (known: [dict keys $spec])"
                }
                if {[dict get $spec $a]} {
                    incr i
                    if {$i >= [llength $args]} { error "%s: option $a needs a value" }
                    dict lappend opts $a [lindex $args $i]
                } else {
                    dict set opts $a 1
                }
            } else {
                lappend pos $a
            }
        }
        lassign $npos lo hi
        if {[llength $pos] < $lo || ($hi >= 0 && [llength $pos] > $hi)} {
            error "%s: expected $lo..$hi positional arguments, got [llength $pos]: $pos"
        }
        lappend ::stub::calls [concat %s $args]
        %s
    } $spec $npos $name $name $name $name $body]
}

proc ::stub::need_file {cmd path} {
    lappend ::stub::files [list $cmd $path]
    if {![file isfile $path]} {
        lappend ::stub::errors "$cmd: no such file: $path"
        return 0
    }
    return 1
}

# ---- project, IP
::stub::define create_project {-part 1 -in_memory 0 -force 0 -ip 0} {0 2}
::stub::define current_project {} {0 1} { return stub_project }
::stub::define current_design {} {0 1} { return stub_design }
::stub::define create_ip {-name 1 -vendor 1 -library 1 -version 1 -module_name 1 -dir 1} {0 0} {
    foreach o {-name -vendor -library -module_name -dir} {
        if {![dict exists $opts $o]} { error "create_ip: $o missing" }
    }
    set m [lindex [dict get $opts -module_name] 0]
    if {$m in $::stub::ips} { error "create_ip: module $m created twice" }
    lappend ::stub::ips $m
    return $m
}
::stub::define get_ips {-quiet 0 -filter 1} {0 1} {
    if {[llength $pos] == 0} { return $::stub::ips }
    set found [lsearch -all -inline -glob $::stub::ips [lindex $pos 0]]
    if {$found eq ""} { error "get_ips: no IP matches [lindex $pos 0] (made: $::stub::ips)" }
    return $found
}
::stub::define set_property {-dict 0 -quiet 0 -objects 1} {1 3} {
    if {[dict exists $opts -dict]} {
        if {[llength $pos] != 2} { error "set_property -dict: expected {name value ...} and objects" }
        set kv [lindex $pos 0]
        if {[llength $kv] % 2} { error "set_property -dict: odd name/value list: $kv" }
        foreach {k v} $kv {
            if {$v eq ""} { error "set_property -dict: $k has an empty value" }
        }
    } elseif {[llength $pos] != 3} {
        error "set_property: expected name value objects, got $pos"
    }
}
::stub::define get_property {-quiet 0} {2 2} { return 0.100 }
::stub::define generate_target {-force 0 -quiet 0} {2 2}
::stub::define synth_ip {-force 0 -quiet 0 -jobs 1} {1 1}

# ---- sources and constraints
::stub::define read_verilog {-sv 0 -library 1 -quiet 0} {1 -1} {
    foreach f $pos { ::stub::need_file read_verilog $f }
}
::stub::define read_xdc {-unmanaged 0 -ref 1 -cells 1 -mode 1 -quiet 0} {1 -1} {
    foreach f $pos {
        if {[::stub::need_file read_xdc $f]} {
            set ::stub::current $f
            if {[catch {uplevel #0 [list source $f]} msg]} {
                lappend ::stub::errors "read_xdc $f: $msg"
            }
            set ::stub::current ""
        }
    }
}
rename source ::stub::tcl_source
proc source {args} {
    set f [lindex $args end]
    ::stub::need_file source $f
    uplevel 1 [list ::stub::tcl_source {*}$args]
}

# ---- XDC commands (board.xdc, timing.xdc)
::stub::define get_ports {-quiet 0 -filter 1} {0 1} {
    foreach p [lindex $pos 0] { lappend ::stub::ports [regsub {\[\d+\]$} $p ""] }
    return [lindex $pos 0]
}
::stub::define get_pins {-quiet 0 -hierarchical 0 -filter 1 -of_objects 1} {0 1} { return stub_pin }
::stub::define get_cells {-quiet 0 -hierarchical 0 -filter 1 -of_objects 1} {0 1} { return stub_cell }
::stub::define get_clocks {-quiet 0 -filter 1 -of_objects 1} {0 1} { return stub_clock }
::stub::define create_clock {-period 1 -name 1 -waveform 1 -add 0} {0 1} {
    if {![dict exists $opts -period] || ![string is double -strict [dict get $opts -period]]} {
        error "create_clock: -period missing or not a number"
    }
}
::stub::define set_false_path {-from 1 -to 1 -through 1 -setup 0 -hold 0} {0 0}
::stub::define set_clock_groups {-asynchronous 0 -group 1 -name 1} {0 0}
::stub::define set_max_delay {-from 1 -to 1 -datapath_only 0} {1 1}

# ---- synthesis, implementation, reports
::stub::define synth_design {-top 1 -part 1 -generic 1 -verilog_define 1 -flatten_hierarchy 1 -directive 1
    -include_dirs 1 -mode 1} {0 0} {
    if {![dict exists $opts -top]} { error "synth_design: -top missing" }
}
::stub::define opt_design {-directive 1} {0 0}
::stub::define place_design {-directive 1} {0 0}
::stub::define phys_opt_design {-directive 1} {0 0}
::stub::define route_design {-directive 1} {0 0}
::stub::define write_checkpoint {-force 0} {1 1}
::stub::define write_bitstream {-force 0 -bin_file 0} {1 1}
::stub::define report_utilization {-file 1 -hierarchical 0} {0 0}
::stub::define report_timing_summary {-file 1 -max_paths 1 -delay_type 1} {0 0}
::stub::define report_clock_interaction {-file 1} {0 0}
::stub::define get_timing_paths {-max_paths 1 -nworst 1 -setup 0 -hold 0} {0 0} { return stub_path }

# Anything else is not a Vivado command this check knows: fail rather than let it pass silently.
rename unknown ::stub::tcl_unknown
proc unknown {args} {
    error "unknown command: [lindex $args 0]"
}
