// The translation unit that carries the test programs' precompiled headers (CMakeLists.txt,
// ONEMODEL_TEST_PCH): the unit and kernel tests reuse the headers it makes. It defines nothing.
