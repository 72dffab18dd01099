// import_measurements_csv DB CSV SPACE NOTES: rebuilds a database from a measurements CSV of the H200 runs
// kept in results/h200/ (tests/support/csv_import.hpp says what is derived and what is left out), so
// mpgemm-report can draw them. NOTES (the provenance) goes into each run's notes. A test tool, built with the
// tests.
#include <exception>
#include <iostream>

#include "support/csv_import.hpp"

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: import_measurements_csv DB CSV SPACE NOTES\n";
    return 2;
  }
  // The device of every run in results/h200/ (README, "Results on the H200").
  mpgemm::DeviceDescription h200;
  h200.name = "NVIDIA H200";
  h200.arch = *mpgemm::Arch::parse("sm_90");
  h200.sm_count = 132;
  h200.driver_version = "13.0";
  h200.runtime_version = "13.0";
  h200.cublas_version = "13.1.0";
  try {
    const auto done = mpgemm::testing::import_measurements_csv(argv[1], argv[2], argv[3], h200, argv[4]);
    std::cout << "import_measurements_csv: " << done.measurements << " measurements in " << done.runs << " run(s) into "
              << argv[1] << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "import_measurements_csv: " << e.what() << "\n";
    return 1;
  }
}
