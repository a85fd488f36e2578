// SPDX-License-Identifier: LGPL-2.1-or-later
// ASSERT_OK(expr): in a test body (or a void helper), a vmafx::Status expression must be ok; else the test stops
// there, naming the expression and the status.
#pragma once

#include <gtest/gtest.h>

#include "vmafx/status.h"

#define ASSERT_OK(expr)                                         \
  do {                                                          \
    ::vmafx::Status s_ = (expr);                                \
    ASSERT_TRUE(s_.is_ok()) << #expr << ": " << s_.to_string(); \
  } while (0)
