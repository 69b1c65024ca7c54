# hostile: regression tests of issue 34's checking half (tests/hostile/,
# docs/VALIDATION.md): each fails on 9ae71be and passes with its fix.
set(SE_HOSTILE ${CMAKE_CURRENT_SOURCE_DIR}/hostile)
set(SE_BIN $<TARGET_FILE:softmax-evidence>)
add_test(NAME "hostile:merge_run_dir_must_be_the_tasks_own_folder"
         COMMAND python3 ${SE_HOSTILE}/merge_judge.py ${SE_BIN} ${CMAKE_SOURCE_DIR}
                 ${CMAKE_SOURCE_DIR}/runs/reference)
add_test(NAME "hostile:merge_bad_task_json_said_without_traceback_or_block"
         COMMAND python3 ${SE_HOSTILE}/merge_input.py ${SE_BIN} ${CMAKE_SOURCE_DIR}
                 ${CMAKE_SOURCE_DIR}/runs/reference)
set_tests_properties("hostile:merge_run_dir_must_be_the_tasks_own_folder"
                     "hostile:merge_bad_task_json_said_without_traceback_or_block"
                     PROPERTIES LABELS cpu TIMEOUT 300)
add_test(NAME "hostile:array_sh_refuses_quotes_percent_newlines"
         COMMAND ${SE_HOSTILE}/array_args.sh ${CMAKE_SOURCE_DIR})
set_tests_properties("hostile:array_sh_refuses_quotes_percent_newlines" PROPERTIES LABELS cpu
                     TIMEOUT 120)
add_test(NAME "hostile:samples_impossible_times_refused_by_verify"
         COMMAND ${SE_HOSTILE}/samples_times.sh ${SE_BIN} $<TARGET_FILE:resummarize_run>
                 ${CMAKE_SOURCE_DIR})
set_tests_properties("hostile:samples_impossible_times_refused_by_verify" PROPERTIES LABELS cpu
                     TIMEOUT 300)
add_test(NAME "hostile:json_parse_memory_bounded_near_file_size"
         COMMAND python3 ${SE_HOSTILE}/json_memory.py ${SE_BIN} ${CMAKE_SOURCE_DIR}/runs/reference)
set_tests_properties("hostile:json_parse_memory_bounded_near_file_size" PROPERTIES LABELS cpu
                     TIMEOUT 300)
add_test(NAME "hostile:remote_only_manifest_line_checked"
         COMMAND ${SE_HOSTILE}/remote_line.sh ${SE_BIN}
                 ${CMAKE_SOURCE_DIR}/runs/perf/20261130T192606Z # its remote.json predates remote_lines_sha256
                 ${CMAKE_CURRENT_SOURCE_DIR}/data/complete-run/20261201T004007Z)
set_tests_properties("hostile:remote_only_manifest_line_checked"
                     PROPERTIES LABELS cpu TIMEOUT 300)
add_test(NAME "hostile:saved_array_recheck_memory_bounded_sparse_and_gzip_bomb"
         COMMAND python3 ${SE_HOSTILE}/array_memory.py ${SE_BIN}
                 ${CMAKE_CURRENT_SOURCE_DIR}/data/complete-run/20261201T004007Z)
set_tests_properties("hostile:saved_array_recheck_memory_bounded_sparse_and_gzip_bomb"
                     PROPERTIES LABELS cpu TIMEOUT 300 SKIP_RETURN_CODE 77)
add_test(NAME "hostile:verify_archive_reads_gzip_to_its_end"
         COMMAND python3 ${SE_HOSTILE}/archive_end.py ${SE_BIN}
                 ${CMAKE_CURRENT_SOURCE_DIR}/data/complete-run/20261201T004007Z)
set_tests_properties("hostile:verify_archive_reads_gzip_to_its_end" PROPERTIES LABELS cpu
                     TIMEOUT 300 SKIP_RETURN_CODE 77)
