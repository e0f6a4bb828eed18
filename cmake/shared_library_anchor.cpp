// The shared library's own source: none. libonemodel.so is the static archives linked whole
// (cmake/install.cmake); CMake needs one source file to make a library target.
