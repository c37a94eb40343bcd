// ZeroMQ PUB/SUB market-data feed with framed, type-identified messages
// (market_feed.hpp): a publisher thread and a subscriber on 127.0.0.1
// ephemeral ports, a readiness handshake against the slow-joiner problem, then
// 10000 ticks, quotes and notes and an End message. Exits 0 when every message
// arrived, in order, with the values it was sent with; every wait has a
// deadline, so it stops by itself.
#include <chrono>
#include <cstdio>
#include <thread>

#include "market_feed.hpp"

int main() {
  using namespace std::chrono_literals;
  constexpr std::uint64_t n = 10000;
  zmq::context_t ctx;
  feed::Publisher pub(ctx);
  feed::Subscriber sub(ctx, pub.data_endpoint(), pub.sync_endpoint());

  bool publisher_ok = false;
  std::thread publisher([&] {
    publisher_ok = pub.wait_for_subscriber(10s);
    if (publisher_ok) pub.run_feed(n);
  });
  const bool joined = sub.handshake(10s);
  const bool finished = joined && sub.run(5s);
  publisher.join();

  const feed::Tally& t = sub.tally;
  std::printf("handshake %s after %llu hello(s); %llu ticks, %llu quotes, %llu notes; "
              "%llu out of order, %llu wrong, %llu rejected\n",
              joined ? "done" : "FAILED", static_cast<unsigned long long>(t.hellos),
              static_cast<unsigned long long>(t.ticks), static_cast<unsigned long long>(t.quotes),
              static_cast<unsigned long long>(t.notes),
              static_cast<unsigned long long>(t.out_of_order),
              static_cast<unsigned long long>(t.wrong_value),
              static_cast<unsigned long long>(t.rejected));
  const bool ok = publisher_ok && finished && t.end_count == n && t.data() == n &&
                  t.out_of_order == 0 && t.wrong_value == 0 && t.rejected == 0;
  return ok ? 0 : 1;
}
