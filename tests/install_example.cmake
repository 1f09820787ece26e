# ctest example_find_package: installs this build into a scratch prefix, then
# configures, builds and runs examples/pagerank_top5 against it the way another
# project would (find_package(perron CONFIG REQUIRED)). Arguments: -DBUILD=
# (this build folder), -DSOURCE= (the project root), -DWORK= (scratch folder),
# -DGENERATOR=, -DCXX= (the C++ compiler of this build).
file(REMOVE_RECURSE ${WORK})
include(${CMAKE_CURRENT_LIST_DIR}/cmake_step.cmake)
step("install" ${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/prefix)
step("configure the example" ${CMAKE_COMMAND} -S ${SOURCE}/examples/pagerank_top5 -B ${WORK}/build -G ${GENERATOR}
     -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${WORK}/prefix)
step("build the example" ${CMAKE_COMMAND} --build ${WORK}/build)
step("run the example" ${WORK}/build/pagerank_top5 ${SOURCE}/data/wb-cs-stanford.mtx)
if(NOT step_output MATCHES "9914 vertices, [0-9]+ iterations, converged\n1  vertex 2264 ")
  message(FATAL_ERROR "unexpected output of the example:\n${step_output}")
endif()
message(STATUS "${step_output}")
