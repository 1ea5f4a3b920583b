# `cmake --install build --prefix P`: the binary in P/bin, the scenarios and shaders in
# P/share/precision-lab (where the binary looks beside itself: core/util/paths.h), a .desktop file
# and an icon; `cpack -G DEB` (run in the build folder) packs the same tree as a Debian package.
include(GNUInstallDirs)
# The installed binary keeps the build's search path for OpenBLAS's pthread variant (from its
# pkg-config file), so it loads the same library whichever BLAS the system's alternative names.
set_target_properties(precision-lab PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
install(TARGETS precision-lab RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/assets/scenarios DESTINATION ${CMAKE_INSTALL_DATADIR}/precision-lab)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/shaders DESTINATION ${CMAKE_INSTALL_DATADIR}/precision-lab)
install(FILES ${PROJECT_SOURCE_DIR}/assets/precision-lab.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${PROJECT_SOURCE_DIR}/assets/icons/precision-lab.svg
        DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/precision-lab)

set(CPACK_PACKAGE_NAME precision-lab)
set(CPACK_PACKAGE_VENDOR "Precision Lab")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "See what happens to numbers when deep-learning code lowers dtypes")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_INSTALL_DIRECTORY precision-lab)
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "Precision Lab developers")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# The shared libraries the binary links (OpenBLAS, cairo, GLFW, EGL) become the package's
# dependencies, read off the binary by dpkg-shlibdeps.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
include(CPack)
