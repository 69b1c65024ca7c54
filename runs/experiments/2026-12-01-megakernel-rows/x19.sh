#!/usr/bin/env bash
# Experiment 19: run from the repository root at ee3ec0e, .dev/debs (jansson) carried;
# the first two launches of each kernel are 4096x4096, the next two 4x4194304.
# Why the row-major megakernel takes 1.09x fusion on 4096x4096: Nsight Compute's
# warp-state and memory sections for one instance of each kernel.
for f in .dev/debs/libjansson*.deb; do dpkg -x "$f" /; done; ldconfig
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DSE_BUILD_TESTS=OFF >/dev/null && cmake --build build -j16 2>&1 | grep -E " error|FAILED" | head
for k in megakernel fusion; do
  timeout 120 ncu --section WarpStateStats --section SchedulerStats --section Occupancy --section MemoryWorkloadAnalysis --section SpeedOfLight \
    --metrics smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio,smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_drain_per_issue_active.ratio,smsp__average_warps_issue_stalled_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio,smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio,smsp__average_warps_issue_stalled_imc_miss_per_issue_active.ratio -k "regex:^se_k_${k}\$" --launch-count 4 build/softmax-evidence run --validate-only --quiet --strategies $k --shapes 4096x4096,4x4194304 > $OUT/ncu-$k.txt 2>&1
  echo "$k exit $?"; grep -E "stalled|se_k_|Warp Cycles|Issued Warp|Eligible|Active Warps|Duration|DRAM Throughput|Memory Throughput|No Eligible|Achieved Occ" $OUT/ncu-$k.txt | head -80
done
