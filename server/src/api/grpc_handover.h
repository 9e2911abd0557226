// ThreadSanitizer does not see libgrpc's hand-overs (Debian's libgrpc is not instrumented): a reactor our code
// makes on the thread that took a call, then uses in the callbacks gRPC runs on its own threads, reads as a race
// in every field it has. These mark the hand-over for it: HandedToGrpc as the reactor goes to gRPC (the handler
// returns it, or starts an operation gRPC completes elsewhere), BackFromGrpc first in each of its callbacks.
// Outside a TSan build the weak symbols are absent and the calls do nothing.
#pragma once

extern "C" void __tsan_acquire(void* address) __attribute__((weak));
extern "C" void __tsan_release(void* address) __attribute__((weak));

namespace hotel::api {

inline void HandedToGrpc(void* reactor) {
  if (__tsan_release != nullptr) __tsan_release(reactor);
}

inline void BackFromGrpc(void* reactor) {
  if (__tsan_acquire != nullptr) __tsan_acquire(reactor);
}

}  // namespace hotel::api
