// SPDX-License-Identifier: LGPL-2.1-or-later
#include <gtest/gtest.h>

#include <cmath>

#include "vmafx/collector.h"

namespace vmafx {
namespace {

TEST(Collector, PoolsLikeLibvmaf) {
  Collector c;
  const size_t col = c.add_column("vmaf");
  const double v[] = {80.0, 60.0, 100.0, 40.0};
  for (int i = 0; i < 4; i++) c.set(i, col, v[i]);
  const PoolStats p = c.pool(col);
  EXPECT_EQ(p.count, 4u);
  EXPECT_DOUBLE_EQ(p.mean, 70.0);
  EXPECT_DOUBLE_EQ(p.min, 40.0);
  EXPECT_DOUBLE_EQ(p.max, 100.0);
  // libvmaf's harmonic mean: n / sum(1 / (x + 1)) - 1.
  const double inv = 1 / 81.0 + 1 / 61.0 + 1 / 101.0 + 1 / 41.0;
  EXPECT_DOUBLE_EQ(p.harmonic_mean, 4 / inv - 1);
  EXPECT_DOUBLE_EQ(p.percentile(50), 70.0);
  EXPECT_DOUBLE_EQ(p.percentile(0), 40.0);
  EXPECT_DOUBLE_EQ(p.percentile(100), 100.0);
  EXPECT_NEAR(p.percentile(5), 40.0 + 0.15 * 20.0, 1e-12);
}

TEST(Collector, SubsamplePoolsScoredFramesOnly) {
  Collector c;
  c.set_subsample(2);
  const size_t col = c.add_column("x");
  for (int i = 0; i < 5; i++) c.set(i, col, i);
  const PoolStats p = c.pool(col);
  EXPECT_EQ(p.count, 3u);  // frames 0, 2, 4
  EXPECT_DOUBLE_EQ(p.mean, 2.0);
}

TEST(Collector, ColumnsAreUniqueAndMissingValuesAbsent) {
  Collector c;
  EXPECT_EQ(c.add_column("a"), c.add_column("a"));
  EXPECT_EQ(c.find("b"), -1);
  double v;
  EXPECT_FALSE(c.get(3, 0, &v));
  c.set(3, 0, 1.5);
  EXPECT_TRUE(c.get(3, 0, &v));
  EXPECT_FALSE(c.has(2, 0));
  EXPECT_EQ(c.frames(), 4u);
}

TEST(Collector, ParsesPoolMethods) {
  PoolMethod m;
  EXPECT_TRUE(parse_pool_method("harmonic-mean", &m));
  EXPECT_EQ(m, PoolMethod::harmonic_mean);
  EXPECT_FALSE(parse_pool_method("median", &m));
}

}  // namespace
}  // namespace vmafx
