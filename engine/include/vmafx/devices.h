// SPDX-License-Identifier: LGPL-2.1-or-later
// Where features are computed: the CPU reference or a GPU through HIP, and the GPU runtimes the HIP engine loads.
#pragma once

namespace vmafx {

enum class Backend { auto_select, cpu, hip };
enum class Vendor { auto_select, amd, nvidia };
const char* backend_name(Backend b);
const char* vendor_name(Vendor v);

}  // namespace vmafx
