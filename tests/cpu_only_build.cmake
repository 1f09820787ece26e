# ctest cpu_only_build (registered where the CUDA backend is built): configures
# the project again with PERRON_CUDA=OFF, as on a machine without nvcc, builds
# the command-line programs and runs each once, so that a symbol the CUDA files
# define and the CPU-only stubs (solvers/cuda/stub, kernels/cuda/stub) lack
# fails here and not on a user's laptop. Arguments: -DSOURCE= (the project
# root), -DWORK= (scratch folder), -DGENERATOR=, -DCXX= (the C++ compiler of
# this build).
file(REMOVE_RECURSE ${WORK})
include(${CMAKE_CURRENT_LIST_DIR}/cmake_step.cmake)
step("configure without CUDA" ${CMAKE_COMMAND} -S ${SOURCE} -B ${WORK} -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release
     -DCMAKE_CXX_COMPILER=${CXX} -DPERRON_CUDA=OFF -DPERRON_BUILD_TESTS=OFF -DPERRON_PYTHON=OFF -DPERRON_MPI=OFF)
step("build pagerank and heat1d without CUDA" ${CMAKE_COMMAND} --build ${WORK} --target pagerank heat1d)
step("run pagerank without CUDA" ${WORK}/bin/pagerank ${SOURCE}/data/wb-cs-stanford.mtx --top 1 --no-cache)
if(NOT step_output MATCHES "converged" OR NOT step_output MATCHES "cpu")
  message(FATAL_ERROR "unexpected output of pagerank without CUDA:\n${step_output}")
endif()
step("run heat1d without CUDA" ${WORK}/bin/heat1d --N 200)
message(STATUS "pagerank and heat1d built and ran without CUDA")
