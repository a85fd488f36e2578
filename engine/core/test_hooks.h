// SPDX-License-Identifier: LGPL-2.1-or-later
// The build's test-hooks switch. Test seams (planted defects that the tests must catch, counters the tests read) are
// compiled only into a build with test hooks: meson's -Dtest-hooks, on whenever the tests are built and off in a
// build for installing (-Dtests=false); meson defines VMAFX_TEST_HOOKS to 1 or 0 for every target.
//
// Each layer declares its seams in an internal header that only tests include (hip/test_hooks.h,
// import/test_hooks.h, gl/test_hooks.h). Without hooks those headers declare the seams as constants or empty inline
// functions, so product code calls them without conditional compilation and the compiler removes what they guard.
#pragma once

#ifndef VMAFX_TEST_HOOKS
#define VMAFX_TEST_HOOKS 0
#endif

namespace vmafx {

inline constexpr bool kTestHooks = VMAFX_TEST_HOOKS != 0;

}  // namespace vmafx
