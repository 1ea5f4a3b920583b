# Every dependency comes from a Debian package (scripts/setup.sh installs them);
# nothing is downloaded at configure or build time.
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(GTest REQUIRED)
pkg_check_modules(CAIRO REQUIRED IMPORTED_TARGET cairo)
pkg_check_modules(OPENBLAS REQUIRED IMPORTED_TARGET openblas)  # Debian's libopenblas-dev (pthread)
pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2)  # Debian's libre2-dev: linear-time regular expressions

if(NOT PL_CORE_ONLY)
  find_package(CLI11 REQUIRED)
  find_package(benchmark REQUIRED)
  find_package(glfw3 3.3 REQUIRED)
  find_package(OpenGL REQUIRED COMPONENTS OpenGL EGL)
  pkg_check_modules(IMGUI REQUIRED IMPORTED_TARGET imgui)  # Debian's libimgui-dev 1.86

  # glad (python3-glad) generates the GL loader at build time; --reproducible keeps it offline
  # by using the Khronos XML it ships instead of fetching the latest.
  find_program(GLAD_EXECUTABLE glad REQUIRED)
  set(GLAD_OUT ${CMAKE_BINARY_DIR}/glad)
  add_custom_command(
    OUTPUT ${GLAD_OUT}/src/gl.c ${GLAD_OUT}/include/glad/gl.h
    COMMAND ${GLAD_EXECUTABLE} --quiet --api gl:core=3.3 --out-path ${GLAD_OUT} --reproducible c
    COMMENT "Generating the OpenGL 3.3 core loader with glad")
  add_library(glad STATIC ${GLAD_OUT}/src/gl.c)
  target_include_directories(glad PUBLIC ${GLAD_OUT}/include)
  set_target_properties(glad PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_compile_options(glad PRIVATE -w)
endif()
