# ctest example_find_package: installs this build into a scratch prefix, then
# configures, builds and runs examples/pagerank_top5 against it the way another
# project would (find_package(perron CONFIG REQUIRED)). Arguments: -DBUILD=
# (this build folder), -DSOURCE= (the project root), -DWORK= (scratch folder),
# -DGENERATOR=, -DCXX= (the C++ compiler of this build), -DHAVE_CUDA= (whether
# it has the CUDA backend).
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

# A component the installed package lacks is refused with the reason (CMake
# said only "it set perron_FOUND to FALSE"): cuda in a build without CUDA, and
# a name that is no component.
function(find_components components expect)
  file(WRITE ${WORK}/components-${components}/CMakeLists.txt
       "cmake_minimum_required(VERSION 3.24)\nproject(c LANGUAGES CXX)\n"
       "find_package(perron CONFIG REQUIRED COMPONENTS ${components})\n")
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${WORK}/components-${components} -B ${WORK}/components-${components}/b
                          -G ${GENERATOR} -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${WORK}/prefix
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(expect STREQUAL "found")
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "COMPONENTS ${components} was not found:\n${out}\n${err}")
    endif()
  elseif(rc EQUAL 0 OR NOT err MATCHES "${expect}")
    message(FATAL_ERROR "COMPONENTS ${components}: expected a failure saying '${expect}':\n${out}\n${err}")
  endif()
endfunction()
if(HAVE_CUDA)
  find_components(cuda found)
else()
  find_components(cuda "this perron was built without CUDA")
endif()
find_components(nosuch "perron has no component 'nosuch'")
