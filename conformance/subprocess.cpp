#include "conformance/subprocess.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <ostream>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace tev::conformance {

namespace {
using Clock = std::chrono::steady_clock;

int milliseconds_left(Clock::time_point deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left > 0 ? static_cast<int>(left) : 0;
}

Clock::time_point deadline_after(double seconds) {
  return Clock::now() + std::chrono::milliseconds(static_cast<long long>(seconds * 1000.0));
}
}  // namespace

VerifierProcess::VerifierProcess(const std::string& command) {
  // A verifier that dies mid-write must give us EPIPE, not kill this process.
  std::signal(SIGPIPE, SIG_IGN);
  int in[2], out[2];
  if (pipe(in) != 0 || pipe(out) != 0)
    throw VerifierFailure(std::string("cannot create pipes: ") + std::strerror(errno));
  pid_ = fork();
  if (pid_ < 0) throw VerifierFailure(std::string("cannot fork: ") + std::strerror(errno));
  if (pid_ == 0) {
    // Its own process group, so a timeout can kill the shell and everything it started.
    setpgid(0, 0);
    dup2(in[0], STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    close(in[0]);
    close(in[1]);
    close(out[0]);
    close(out[1]);
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  setpgid(pid_, pid_);  // also here: whichever of parent and child runs first
  close(in[0]);
  close(out[1]);
  to_child_ = in[1];
  from_child_ = out[0];
  fcntl(to_child_, F_SETFL, fcntl(to_child_, F_GETFL) | O_NONBLOCK);
  fcntl(from_child_, F_SETFL, fcntl(from_child_, F_GETFL) | O_NONBLOCK);
}

VerifierProcess::~VerifierProcess() {
  if (to_child_ >= 0) close(to_child_);
  if (from_child_ >= 0) close(from_child_);
  if (pid_ > 0) {
    kill(-pid_, SIGKILL);  // the whole group: a shell's children must not outlive the check
    if (exit_status_ < 0) waitpid(pid_, &exit_status_, 0);
  }
}

// One poll round: read what is readable, write what fits. False when nothing could happen in time.
bool VerifierProcess::pump(int poll_timeout_ms, bool want_write, const std::string& data,
                           std::size_t& written) {
  pollfd fds[2] = {{from_child_, POLLIN, 0}, {to_child_, POLLOUT, 0}};
  const nfds_t count = want_write ? 2 : 1;
  if (output_closed_) fds[0].fd = -1;
  const int ready = poll(fds, count, poll_timeout_ms);
  if (ready < 0) {
    if (errno == EINTR) return true;
    throw VerifierFailure(std::string("poll failed: ") + std::strerror(errno));
  }
  if (ready == 0) return false;
  if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
    char chunk[1 << 16];
    const ssize_t n = read(from_child_, chunk, sizeof chunk);
    if (n > 0) buffer_.append(chunk, static_cast<std::size_t>(n));
    if (n == 0) output_closed_ = true;
  }
  if (want_write && (fds[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
    const ssize_t n = write(to_child_, data.data() + written, data.size() - written);
    if (n < 0 && errno != EAGAIN)
      throw VerifierFailure("the verifier stopped reading its input (" + status() + ")");
    if (n > 0) written += static_cast<std::size_t>(n);
  }
  return true;
}

void VerifierProcess::send(const std::string& data, double timeout_seconds) {
  std::size_t written = 0;
  auto deadline = deadline_after(timeout_seconds);
  while (written < data.size()) {
    const std::size_t before = written + buffer_.size();
    if (!pump(milliseconds_left(deadline), true, data, written)) {
      throw VerifierFailure("the verifier did not read its input for " +
                            std::to_string(timeout_seconds) + " s (hung?)");
    }
    if (written + buffer_.size() != before) deadline = deadline_after(timeout_seconds);
  }
}

std::string VerifierProcess::read_line(double timeout_seconds) {
  const auto deadline = deadline_after(timeout_seconds);
  std::size_t ignored = 0;
  for (;;) {
    const auto newline = buffer_.find('\n');
    if (newline != std::string::npos) {
      std::string line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      return line;
    }
    if (output_closed_)
      throw VerifierFailure("the verifier closed its output early (" + status() + ")");
    if (buffer_.size() > kMaxSampleLineBytes) {
      throw VerifierFailure("the verifier printed a line longer than " +
                            std::to_string(kMaxSampleLineBytes) + " bytes (kMaxSampleLineBytes)");
    }
    if (!pump(milliseconds_left(deadline), false, {}, ignored)) {
      throw VerifierFailure("no output from the verifier for " +
                            std::to_string(static_cast<int>(timeout_seconds)) + " s (hung? " +
                            status() + ")");
    }
  }
}

std::string VerifierProcess::finish(double timeout_seconds) {
  close(to_child_);
  to_child_ = -1;
  const auto deadline = deadline_after(timeout_seconds);
  std::size_t ignored = 0;
  while (!output_closed_) {
    if (!pump(milliseconds_left(deadline), false, {}, ignored)) break;
  }
  std::string rest;
  rest.swap(buffer_);
  return rest;
}

std::string VerifierProcess::status() {
  if (exit_status_ < 0) {
    int st = 0;
    // Give a dying child a moment to be reaped, so the message can say how it ended.
    for (int i = 0; i < 20 && exit_status_ < 0; ++i) {
      if (waitpid(pid_, &st, WNOHANG) == pid_) {
        exit_status_ = st;
      } else {
        usleep(10000);
      }
    }
  }
  if (exit_status_ < 0) return "still running";
  if (WIFEXITED(exit_status_))
    return "exited with status " + std::to_string(WEXITSTATUS(exit_status_));
  if (WIFSIGNALED(exit_status_))
    return "killed by signal " + std::to_string(WTERMSIG(exit_status_)) + " (" +
           strsignal(WTERMSIG(exit_status_)) + ")";
  return "ended";
}

namespace {
// Streams each case of `cases` to the verifier and feeds its sample lines to the case's Judge.
template <class Reader, class Judge, class JudgeAll>
auto stream_cases(Reader& cases, const RunOptions& options, std::ostream& progress,
                  JudgeAll judge_all) {
  VerifierProcess process(options.command);
  std::deque<typename decltype(cases.next())::value_type>
      held;  // a deque: the judges keep pointers to their cases
  std::vector<Judge> judges;
  while (auto next = cases.next()) {
    const auto& c = held.emplace_back(std::move(*next));
    judges.emplace_back(c, options.seed, static_cast<std::uint32_t>(judges.size()));
    progress << "case " << c.id << " (" << judges.size() << "): " << c.samples << " samples ..."
             << std::flush;
    const auto start = Clock::now();
    try {
      process.send(cases.line() + "\n", options.timeout_seconds);
      for (std::uint64_t s = 0; s < c.samples; ++s) {
        const std::string line = process.read_line(options.timeout_seconds);
        judges.back().add_line(
            line, "verifier output, case " + c.id + " sample " + std::to_string(s + 1));
      }
    } catch (const InputError& e) {
      throw VerifierFailure(
          std::string("the verifier printed something that is not a valid sample: ") + e.what());
    } catch (const VerifierFailure& e) {
      throw VerifierFailure("case " + c.id + ": " + e.what());
    }
    progress << " " << std::chrono::duration<double>(Clock::now() - start).count() << " s\n";
  }
  const std::string rest = process.finish(options.timeout_seconds);
  if (rest.find_first_not_of(" \t\r\n") != std::string::npos) {
    throw VerifierFailure(
        "the verifier printed more lines than the cases asked for, starting with: " +
        rest.substr(0, 200));
  }
  return judge_all(judges, options.policy);
}
}  // namespace

ConformanceReport run_verifier_command(CaseReader& cases, const RunOptions& options,
                                       std::ostream& progress) {
  return stream_cases<CaseReader, CaseJudge>(
      cases, options, progress,
      [](const std::vector<CaseJudge>& judges, const judging::VerdictPolicy& policy) {
        return judge(judges, policy);
      });
}

ModelReport run_model_verifier_command(ModelCaseReader& cases, const RunOptions& options,
                                       std::ostream& progress) {
  return stream_cases<ModelCaseReader, ModelCaseJudge>(cases, options, progress, judge_models);
}

BatchReport run_batch_verifier_command(BatchCaseReader& cases, const RunOptions& options,
                                       std::ostream& progress) {
  return stream_cases<BatchCaseReader, BatchJudge>(cases, options, progress, judge_batches);
}

GenerationReport run_generation_verifier_command(GenerationCaseReader& cases,
                                                 const RunOptions& options,
                                                 std::ostream& progress) {
  return stream_cases<GenerationCaseReader, GenerationCaseJudge>(cases, options, progress,
                                                                 judge_generations);
}

}  // namespace tev::conformance
