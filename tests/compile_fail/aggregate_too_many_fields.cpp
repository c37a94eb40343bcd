// An aggregate with more fields than automatic reflection binds (128) must
// fail with a message telling the user to write reflect(), not with a
// structured-binding error from inside the library.
// EXPECT-ERROR: cannot be reflected automatically
// EXPECT-ERROR: reflect
#include <bin_serializer/bin_serializer.hpp>

#include <string>

struct TooManyFields {
  std::string name; // not trivially copyable, so the fields must be visited
#ifndef BIN_SERIALIZER_CF_CONTROL
  int f0;
  int f1;
  int f2;
  int f3;
  int f4;
  int f5;
  int f6;
  int f7;
  int f8;
  int f9;
  int f10;
  int f11;
  int f12;
  int f13;
  int f14;
  int f15;
  int f16;
  int f17;
  int f18;
  int f19;
  int f20;
  int f21;
  int f22;
  int f23;
  int f24;
  int f25;
  int f26;
  int f27;
  int f28;
  int f29;
  int f30;
  int f31;
  int f32;
  int f33;
  int f34;
  int f35;
  int f36;
  int f37;
  int f38;
  int f39;
  int f40;
  int f41;
  int f42;
  int f43;
  int f44;
  int f45;
  int f46;
  int f47;
  int f48;
  int f49;
  int f50;
  int f51;
  int f52;
  int f53;
  int f54;
  int f55;
  int f56;
  int f57;
  int f58;
  int f59;
  int f60;
  int f61;
  int f62;
  int f63;
  int f64;
  int f65;
  int f66;
  int f67;
  int f68;
  int f69;
  int f70;
  int f71;
  int f72;
  int f73;
  int f74;
  int f75;
  int f76;
  int f77;
  int f78;
  int f79;
  int f80;
  int f81;
  int f82;
  int f83;
  int f84;
  int f85;
  int f86;
  int f87;
  int f88;
  int f89;
  int f90;
  int f91;
  int f92;
  int f93;
  int f94;
  int f95;
  int f96;
  int f97;
  int f98;
  int f99;
  int f100;
  int f101;
  int f102;
  int f103;
  int f104;
  int f105;
  int f106;
  int f107;
  int f108;
  int f109;
  int f110;
  int f111;
  int f112;
  int f113;
  int f114;
  int f115;
  int f116;
  int f117;
  int f118;
  int f119;
  int f120;
  int f121;
  int f122;
  int f123;
  int f124;
  int f125;
  int f126;
  int f127;
  int f128;
  int f129;
#else
  int only;
#endif
};

int main() {
  bin_serializer::Buffer buf;
  TooManyFields value{};
  return serialize(buf, value) ? 0 : 1;
}
