// SPDX-License-Identifier: LGPL-2.1-or-later
// A fixed set of worker threads running queued tasks in FIFO order. Each task gets the index of the worker that runs
// it, so callers can keep per-thread state (scratch memory) without locks.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace vmafx {

class ThreadPool {
 public:
  using Task = std::function<void(unsigned worker)>;

  explicit ThreadPool(unsigned n) {
    for (unsigned i = 0; i < n; i++) threads_.emplace_back([this, i] { loop(i); });
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lk(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned size() const { return unsigned(threads_.size()); }

  void push(Task t) {
    {
      std::lock_guard<std::mutex> lk(mu_);
      tasks_.push_back(std::move(t));
    }
    cv_.notify_one();
  }

 private:
  void loop(unsigned worker) {
    for (;;) {
      Task t;
      {
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait(lk, [this] { return stop_ || !tasks_.empty(); });
        if (tasks_.empty()) return;  // stop_ and drained
        t = std::move(tasks_.front());
        tasks_.pop_front();
      }
      t(worker);
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Task> tasks_;
  std::vector<std::thread> threads_;
  bool stop_ = false;
};

}  // namespace vmafx
