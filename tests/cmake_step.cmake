# step(WHAT COMMAND...): runs COMMAND, stops the script with WHAT, the exit
# code and both outputs when it fails, and leaves its standard output in
# step_output. Shared by the ctest scripts that build and run things in a
# scratch folder (install_example.cmake, cpu_only_build.cmake).
function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()
