#include "apps/common/detached_exit.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "core/context_start.hpp"
#include "core/device.hpp"
#include "core/error.hpp"

namespace perron::app::detached_exit {
namespace {

bool tried = false;
int handover = -1;         // the child's end of the pipe (-1: not a split's child)
volatile pid_t child = 0;  // in the waiting process
constexpr int passed_on[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

void pass_on(int sig) {
  if (child > 0) kill(child, sig);  // async-signal-safe
}

bool wanted() {
  const char* e = std::getenv("PERRON_TEARDOWN");
  const std::string v = e ? e : "";
  if (!v.empty() && v != "wait" && v != "background")
    throw invalid_argument("PERRON_TEARDOWN must be background or wait, not '" + v + "'");
  if (!cuda::built()) return false;  // a build without CUDA starts no context: nothing to tear down
  if (v == "wait") return false;
  if (v == "background") return true;
  // A CUDA tool's injection library follows the process the tool started:
  // the run stays in that one.
  if (const char* tool = std::getenv("CUDA_INJECTION64_PATH"); tool && *tool) return false;
  // No NVIDIA device node (Linux's, or WSL's GPU node): no context can start,
  // so there is nothing to tear down.
  return cuda::device_node_present();
}

// The waiting process: the child's code when it hands one over, else its end.
[[noreturn]] void wait_for(pid_t pid, int from_child) {
  child = pid;
  struct sigaction a {};
  a.sa_handler = pass_on;
  sigemptyset(&a.sa_mask);
  a.sa_flags = SA_RESTART;
  for (int sig : passed_on) {
    struct sigaction was {};
    sigaction(sig, nullptr, &was);
    if (was.sa_handler != SIG_IGN)
      sigaction(sig, &a, nullptr);  // ignored stays ignored (nohup, a background job)
  }
  // Its standard streams stay with the child alone (nothing is written here).
  if (const int null = open("/dev/null", O_RDWR); null >= 0) {
    for (int fd = 0; fd <= 2; ++fd) dup2(null, fd);
    if (null > 2) close(null);
  }
  unsigned char code = 0;
  ssize_t got;
  do got = read(from_child, &code, 1);
  while (got < 0 && errno == EINTR);
  if (got == 1) _exit(code);
  // No code: the child ended otherwise (a signal, or an exit that did not go
  // through finish); end the same way.
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) _exit(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    std::signal(sig, SIG_DFL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    sigprocmask(SIG_UNBLOCK, &one, nullptr);
    raise(sig);
    _exit(128 + sig);
  }
  _exit(70);  // unreachable: waitpid without WUNTRACED reports only ends
}

}  // namespace

void split() {
  if (tried) return;
  tried = true;
  if (!wanted()) return;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return;  // no split: the run goes on here, with the teardown waited for
  // Nothing buffered may be written by both processes.
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return;
  }
  if (pid > 0) {
    close(fds[1]);
    wait_for(pid, fds[0]);
  }
  close(fds[0]);
  handover = fds[1];
  prctl(PR_SET_PDEATHSIG, SIGKILL);               // the waiting process killed: so is the run
  if (getppid() != parent) _exit(128 + SIGKILL);  // it died before the line above
}

bool possible() { return wanted(); }

bool active() { return handover >= 0; }

void finish(int code) {
  if (handover < 0) return;
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  if (const int null = open("/dev/null", O_RDWR); null >= 0) {
    for (int fd = 0; fd <= 2; ++fd) dup2(null, fd);
    if (null > 2) close(null);
  }
  prctl(PR_SET_PDEATHSIG, 0);  // the waiting process ends now, by design
  const unsigned char c = static_cast<unsigned char>(code);
  while (write(handover, &c, 1) < 0 && errno == EINTR) {
  }
  close(handover);
  std::_Exit(code);
}

}  // namespace perron::app::detached_exit
