# Sourced by the report scripts. `emitter BIN` prints the path of the hdl crate's emitter BIN (emit or
# emit-unit). scripts/test.sh and bitstream/all.sh build both once and set ROCENIC_BIN_DIR, so the parts run
# no cargo: a cargo command waits while another (the test job's `cargo test`) holds the build directory.
# Run alone, a script builds the emitter here. No -p: the workspace's features, so the build reuses the hdl
# crate the workspace build compiled instead of compiling it a second time.
emitter() {
    local bin=$1 root
    if [[ -n ${ROCENIC_BIN_DIR:-} ]]; then
        echo "$ROCENIC_BIN_DIR/$bin"
        return
    fi
    root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    (cd "$root" && cargo build --release -q --bin "$bin") >&2 || return 1
    (cd "$root" && cargo metadata --format-version 1 --no-deps \
        | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])') \
        | sed "s|\$|/release/$bin|"
}
