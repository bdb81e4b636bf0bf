#pragma once
// Swallows the output of MPI ranks other than 0 while it lives. It restores the streams when
// main returns: they flush once more at exit, after main's locals (this buffer) are gone.
#include <iostream>
#include <streambuf>

namespace tev::apps {

class SilencedStandardStreams {
 public:
  SilencedStandardStreams() : cout_(std::cout.rdbuf(&null_)), cerr_(std::cerr.rdbuf(&null_)) {}
  ~SilencedStandardStreams() {
    std::cout.rdbuf(cout_);
    std::cerr.rdbuf(cerr_);
  }
  SilencedStandardStreams(const SilencedStandardStreams&) = delete;
  SilencedStandardStreams& operator=(const SilencedStandardStreams&) = delete;

 private:
  class NullBuffer : public std::streambuf {
   protected:
    int overflow(int c) override { return c; }
  };
  NullBuffer null_;  // declared first: constructed before the streams point at it
  std::streambuf* cout_;
  std::streambuf* cerr_;
};

}  // namespace tev::apps
