#!/usr/bin/env bash
# kernel_table.sh SRC_DIR - every kernel defined in SRC_DIR/gpu/*.cu is in
# the table of src/gpu/kernel_table.cu (se_gpu_kernel_table), whose resources
# every run writes to resources.json; the untimed helpers listed below are
# the only exceptions. Prints the kernels missing and exits 1 if any is.
set -uo pipefail
src=${1:?usage: kernel_table.sh SRC_DIR}
exempt="se_k_profile_marker se_k_timer_resolution"
defined=$( { grep -hoE "__global__ void( __launch_bounds__\([A-Z_0-9, ]+\))? se_k_[a-z_0-9]+\(" \
                 "$src"/gpu/*.cu | grep -oE "se_k_[a-z_0-9]+";
             grep -hoE "^SE_RB_[A-Z_]*KERNEL\(se_k_[a-z_0-9]+" "$src"/gpu/*.cu | grep -oE "se_k_[a-z_0-9]+";
             # SE_PHASE_KERNELS(x) defines se_k_phase_x and se_k_phase_x_packed.
             grep -hoE "^SE_PHASE_KERNELS\([a-z]+\)" "$src"/gpu/*.cu | sed -E 's/.*\((.*)\)/se_k_phase_\1/' |
                 sed 'p; s/$/_packed/';
             # SE_LN_PHASE_KERNELS(x) defines se_k_ln_phase_x and se_k_ln_phase_x_packed.
             grep -hoE "^SE_LN_PHASE_KERNELS\([a-z]+\)" "$src"/gpu/*.cu | sed -E 's/.*\((.*)\)/se_k_ln_phase_\1/' |
                 sed 'p; s/$/_packed/';
             # SE_RB_SPAN_KERNEL(name, ...) also defines name_direct.
             grep -hoE "^SE_RB_SPAN_KERNEL\(se_k_[a-z_0-9]+" "$src"/gpu/*.cu | grep -oE "se_k_[a-z_0-9]+" |
                 sed 's/$/_direct/'; } |
           sort -u)
if [ -z "$defined" ]; then
    echo "FAIL: no kernel definitions found under $src/gpu" >&2
    exit 1
fi
listed=$(grep -oE '\{"se_k_[a-z_0-9]+"' "$src/gpu/kernel_table.cu" | tr -d '{"' | sort -u)
missing=0
for k in $defined; do
    case " $exempt " in *" $k "*) continue ;; esac
    if ! grep -qx "$k" <<<"$listed"; then
        echo "FAIL: $k is defined in $src/gpu but not in se_gpu_kernel_table (src/gpu/kernel_table.cu)"
        missing=$((missing + 1))
    fi
done
echo "$(wc -w <<<"$defined") kernels defined, $missing missing from the table"
[ "$missing" -eq 0 ]
