# The optimisation level of the orchestrator's own code in Release and RelWithDebInfo builds
# (orchestrator/CMakeLists.txt says why); empty: the build type's own level.
set(TOPOLAB_ORCHESTRATOR_OPT "-O1" CACHE STRING
    "Optimisation flag of the orchestrator's code in Release/RelWithDebInfo builds")
option(TOPOLAB_TEST_PCH "Precompile the headers every test program includes" ON)
option(TOPOLAB_UNITY_BUILD "Compile each folder's sources in batches (unity build)" ON)

# Shared compile settings: every topolab target calls topolab_target_defaults().
function(topolab_target_defaults target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  if(TOPOLAB_SANITIZE)
    target_compile_options(${target} PRIVATE -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  endif()
  if(TOPOLAB_TSAN)
    target_compile_options(${target} PRIVATE -fsanitize=thread -fno-omit-frame-pointer)
    target_link_options(${target} PRIVATE -fsanitize=thread)
  endif()
endfunction()

# One folder, one library, one include boundary (issue 13; docs/architecture.md "Layers").
#   topolab_folder_library(<target> <folder> [EXECUTABLE] [RECURSE] [EXCLUDE <regex>...]
#                          [PUBLIC <deps>...] [PRIVATE <deps>...])
# Sources are <folder>/*.cpp (with RECURSE: also its subfolders), globbed so that added files are
# picked up. Code keeps including "<folder>/x.hpp" from the source root, but a target does not
# export that root: it exports a staging folder in the build tree that holds only a link to its
# own folder. A folder therefore sees the headers of the targets it links and no others; a
# dependency a header of the folder needs is PUBLIC, one only its sources need is PRIVATE.
function(topolab_folder_library target folder)
  cmake_parse_arguments(arg "EXECUTABLE;RECURSE" "" "EXCLUDE;PUBLIC;PRIVATE" ${ARGN})
  set(dir ${PROJECT_SOURCE_DIR}/${folder})
  if(arg_RECURSE)
    file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${dir}/*.cpp)
  else()
    file(GLOB srcs CONFIGURE_DEPENDS ${dir}/*.cpp)
  endif()
  foreach(regex ${arg_EXCLUDE})
    list(FILTER srcs EXCLUDE REGEX "${regex}")
  endforeach()
  set(stage ${PROJECT_BINARY_DIR}/include/${target})
  get_filename_component(parent ${stage}/${folder} DIRECTORY)
  file(MAKE_DIRECTORY ${parent})
  file(CREATE_LINK ${dir} ${stage}/${folder} SYMBOLIC)
  if(arg_EXECUTABLE)
    add_executable(${target} ${srcs})
    target_include_directories(${target} PRIVATE ${stage})
    target_link_libraries(${target} PRIVATE ${arg_PUBLIC} ${arg_PRIVATE})
  else()
    add_library(${target} STATIC ${srcs})
    target_include_directories(${target} PUBLIC ${stage})
    target_link_libraries(${target} PUBLIC ${arg_PUBLIC} PRIVATE ${arg_PRIVATE})
  endif()
  topolab_target_defaults(${target})
  # A folder's sources compiled in batches (issue 31): the third-party headers nearly every
  # source includes (nlohmann/json, toml++, CLI11, fmt) are parsed and their templates
  # instantiated once per batch instead of once per source.
  if(TOPOLAB_UNITY_BUILD)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 16)
  endif()
endfunction()
