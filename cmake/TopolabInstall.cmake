# Install rules, the build-tree marker and the Debian package (issue 18 item 4).
# Included at the end of the top-level CMakeLists.txt, after every target exists.
include(GNUInstallDirs)

# --- Where the binary looks at run time (orchestrator/base/install/install_paths.cpp) -------------
# The configured prefix and the share/doc dirs relative to bin/, so an installed tree can be
# moved (dpkg -x into any root) and still find its files next to itself.
file(RELATIVE_PATH topolab_datadir_from_bindir ${CMAKE_INSTALL_FULL_BINDIR}
     ${CMAKE_INSTALL_FULL_DATADIR})
file(RELATIVE_PATH topolab_docdir_from_bindir ${CMAKE_INSTALL_FULL_BINDIR}
     ${CMAKE_INSTALL_FULL_DOCDIR})
set_property(SOURCE ${PROJECT_SOURCE_DIR}/orchestrator/base/install/install_paths.cpp
  TARGET_DIRECTORY topolab_install APPEND PROPERTY COMPILE_DEFINITIONS
  TOPOLAB_INSTALL_BINDIR="${CMAKE_INSTALL_FULL_BINDIR}"
  TOPOLAB_INSTALL_DATADIR="${CMAKE_INSTALL_FULL_DATADIR}"
  TOPOLAB_INSTALL_DOCDIR="${CMAKE_INSTALL_FULL_DOCDIR}"
  TOPOLAB_DATADIR_FROM_BINDIR="${topolab_datadir_from_bindir}"
  TOPOLAB_DOCDIR_FROM_BINDIR="${topolab_docdir_from_bindir}")

# The build-tree marker: binaries under this build directory (topolab, the test executables)
# take templates from the source tree and the agent from the build. Never installed, so a
# packaged topolab cannot consult the source tree. In the ThreadSanitizer tree the host-backend
# tests run the tsan agent.
if(TARGET topolab-agent-tsan)
  set(topolab_marker_agent "$<TARGET_FILE:topolab-agent-tsan>")
else()
  set(topolab_marker_agent "$<TARGET_FILE:topolab-agent>")
endif()
file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/topolab-build-tree.txt
     CONTENT "source=${PROJECT_SOURCE_DIR}\nagent=${topolab_marker_agent}\n")

# --- Man page (gzipped, as Debian installs them) and bash completion -------------------------
set(topolab_man_gz ${PROJECT_BINARY_DIR}/packaging/topolab.1.gz)
add_custom_command(OUTPUT ${topolab_man_gz}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/packaging
  COMMAND gzip -9n -c ${PROJECT_SOURCE_DIR}/packaging/topolab.1 > ${topolab_man_gz}
  DEPENDS ${PROJECT_SOURCE_DIR}/packaging/topolab.1 VERBATIM)
add_custom_target(topolab_man ALL DEPENDS ${topolab_man_gz})

# --- Install ---------------------------------------------------------------------------------
install(TARGETS topolab topolab-agent RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The Windows agent, when the mingw sub-build made it (guest-agent/CMakeLists.txt copies it
# beside topolab-agent); install_paths() looks for it beside the Linux agent.
set(TOPOLAB_WINDOWS_AGENT ${PROJECT_BINARY_DIR}/guest-agent/topolab-agent.exe CACHE FILEPATH
    "topolab-agent.exe to install when it exists at install time")
install(PROGRAMS ${TOPOLAB_WINDOWS_AGENT} DESTINATION ${CMAKE_INSTALL_BINDIR} OPTIONAL)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/templates/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/topolab/templates)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/topolab/examples)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${topolab_man_gz} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/topolab.bash-completion
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME topolab)

# --- Debian package: `cpack -G DEB` in the build directory -----------------------------------
set(CPACK_PACKAGE_NAME topolab)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "topolab maintainers <topolab@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "VM CPU-topology experiments with libvirt and QEMU")
# Debian wants extended description lines under 80 characters.
set(CPACK_PACKAGE_DESCRIPTION "topolab plans vCPU placements from the host's topology,
writes libvirt domain XML, boots guests with a static guest agent over
virtio-serial, and stores and reports benchmark results.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_STRIP_FILES ON)  # RelWithDebInfo binaries: 40 MB package unstripped
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # libvirt0, libsqlite3, libspdlog, libfmt, libpugixml...
# What `topolab boot/run` and `topolab image` need at run time beyond the linked libraries:
# libvirtd and QEMU (qemu:///system, TCG or KVM), and a Debian kernel with its modules (image
# reads /boot/vmlinuz-* and /lib/modules/VERSION and runs xz, zstd or gzip, the kernel's and the
# modules' compressors: orchestrator/guest/image/pvh_kernel.cpp, module_resolver.cpp).
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libvirt-daemon-system, qemu-system-x86, \
linux-image-amd64 | linux-image-cloud-amd64, xz-utils, zstd")
# ovmf: UEFI for the Windows VFIO template; xorriso: `image --windows` writes the agent ISO.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "ovmf, xorriso")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "chromium")
include(CPack)

# --- Packaging test (label `package`, run by scripts/test.sh) --------------------------------
if(TOPOLAB_BUILD_TESTS)
  add_test(NAME package.deb_installed
           COMMAND bash ${PROJECT_SOURCE_DIR}/tests/packaging/deb_installed_test.sh
                   ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR} ${TOPOLAB_FIXTURES_DIR})
  set_tests_properties(package.deb_installed PROPERTIES LABELS package TIMEOUT 900)
endif()
