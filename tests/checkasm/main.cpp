// SPDX-License-Identifier: LGPL-2.1-or-later
// checkasm for the CPU features' SIMD kernels: `checkasm` checks, `checkasm --bench` also times (checkasm.h).
#include "checkasm.h"

namespace vmafx::checkasm {
void register_cpu_kernels(Registry& reg);
void register_adm_kernels(Registry& reg);
void register_cambi_kernels(Registry& reg);
void register_speed_kernels(Registry& reg);
int check_cpu_selection();
}

int main(int argc, char** argv) {
  vmafx::checkasm::Options o;
  if (!vmafx::checkasm::parse_options(argc, argv, &o)) return 2;
  const int selection_failures = o.list ? 0 : vmafx::checkasm::check_cpu_selection();
  vmafx::checkasm::Registry reg;
  vmafx::checkasm::register_cpu_kernels(reg);
  vmafx::checkasm::register_adm_kernels(reg);
  vmafx::checkasm::register_cambi_kernels(reg);
  vmafx::checkasm::register_speed_kernels(reg);
  const int rc = vmafx::checkasm::run_all(reg, o);
  return selection_failures ? 1 : rc;
}
