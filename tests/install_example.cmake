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

# A project that is harder on the package: an include folder of its own that
# holds a header of every installed name (each an #error), C++14 asked for,
# and perron linked into a shared library of its own, compiled with -Wall
# -Wextra -Wshadow -Werror over perron's headers. perron's headers must still
# find perron's (they include each other beside themselves) and warn of
# nothing, the package must bring C++17, and its libraries must be
# position-independent.
if(EXISTS ${WORK}/prefix/include/perron/solvers/dist)
  message(FATAL_ERROR "solvers/dist is installed, but its library (perron_dist) is not")
endif()
set(hard ${WORK}/hard)
file(GLOB_RECURSE installed RELATIVE ${WORK}/prefix/include/perron ${WORK}/prefix/include/perron/*)
foreach(header IN LISTS installed)
  file(WRITE ${hard}/own/${header} "#error \"the project's own ${header} was taken for perron's\"\n")
endforeach()
file(WRITE ${hard}/CMakeLists.txt
     "cmake_minimum_required(VERSION 3.24)\nproject(hard LANGUAGES CXX)\n"
     "set(CMAKE_CXX_STANDARD 14)\nfind_package(perron CONFIG REQUIRED)\n"
     "add_library(plug SHARED plug.cpp)\ntarget_include_directories(plug PRIVATE own)\n"
     # perron's headers as the project's own (not -isystem), under its warnings
     "set_target_properties(plug PROPERTIES NO_SYSTEM_FROM_IMPORTED ON)\n"
     "target_compile_options(plug PRIVATE -Wall -Wextra -Wshadow -Werror)\n"
     "target_link_libraries(plug PRIVATE perron::perron)\n"
     "add_executable(hard main.cpp)\ntarget_link_libraries(hard PRIVATE plug)\n")
set(includes "")
foreach(header IN LISTS installed)
  if(header MATCHES "\\.hpp$")
    string(APPEND includes "#include \"perron/${header}\"\n")
  endif()
endforeach()
file(WRITE ${hard}/plug.cpp "${includes}"
     "double top_rank(const char* path) {\n"
     "  const perron::io::loaded_matrix g = perron::io::load_matrix(path);\n"
     "  const auto graph = perron::make_pagerank_graph<double>(g.matrix, false, g.naming());\n"
     "  const perron::pagerank_result r = perron::pagerank(graph, perron::pagerank_options{});\n"
     "  double best = 0;\n  for (double x : r.rank) best = x > best ? x : best;\n  return best;\n}\n")
file(WRITE ${hard}/main.cpp "#include <cstdio>\ndouble top_rank(const char* path);\n"
     "int main(int, char** argv) { std::printf(\"%.6f\\n\", top_rank(argv[1])); }\n")
step("configure the harder project" ${CMAKE_COMMAND} -S ${hard} -B ${hard}/build -G ${GENERATOR}
     -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${WORK}/prefix)
step("build the harder project" ${CMAKE_COMMAND} --build ${hard}/build)
step("run the harder project" ${hard}/build/hard ${SOURCE}/data/wb-cs-stanford.mtx)
if(NOT step_output MATCHES "^0\\.0[0-9]+\n$")
  message(FATAL_ERROR "unexpected output of the harder project:\n${step_output}")
endif()

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
