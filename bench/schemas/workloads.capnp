# Cap'n Proto schema for the benchmark workloads (bench/peers/peer_capnp.cpp).
# Compiled at build time by `capnp compile -oc++`. C++ enums of the workload
# structs travel as their underlying integer (Cap'n Proto enums are ordinals
# from 0, the workloads' are characters), std::bitset<8> as a UInt8, chrono
# values as their Int64 tick count (microseconds).
@0xc4f1d2b39a6e8057;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("bench::cp");

# ---- Person (grape) ----
struct Person {
  name @0 :Text;
  id @1 :Int32;
  email @2 :Text;
  scores @3 :List(Float32);
}

# ---- Car (xbuf2 / SBE example) ----
struct Booster {
  boostType @0 :UInt8;
  horsePower @1 :UInt8;
}

struct Engine {
  capacity @0 :UInt16;
  numCylinders @1 :UInt8;
  maxRpm @2 :UInt16;
  manufacturerCode @3 :Data;
  booster @4 :Booster;
}

struct FuelFigure {
  speed @0 :UInt16;
  mpg @1 :Float32;
  usageDescription @2 :Text;
}

struct Acceleration {
  mph @0 :UInt16;
  seconds @1 :Float32;
}

struct PerformanceFigure {
  octaneRating @0 :UInt8;
  acceleration @1 :List(Acceleration);
}

struct Car {
  timestamp @0 :Int64;
  serialNumber @1 :UInt64;
  modelYear @2 :UInt16;
  available @3 :Bool;
  code @4 :UInt8;
  someNumbers @5 :List(UInt32);
  vehicleCode @6 :Data;
  extras @7 :UInt8;
  engine @8 :Engine;
  fuelFigures @9 :List(FuelFigure);
  performanceFigures @10 :List(PerformanceFigure);
  manufacturer @11 :Text;
  model @12 :Text;
  activationCode @13 :Text;
}

# ---- Monster (FlatBuffers' game data) ----
struct Vec3 {
  x @0 :Float32;
  y @1 :Float32;
  z @2 :Float32;
}

struct Weapon {
  name @0 :Text;
  damage @1 :Int16;
}

struct Monster {
  pos @0 :Vec3;
  mana @1 :Int16;
  hp @2 :Int16;
  name @3 :Text;
  inventory @4 :Data;
  color @5 :UInt8;
  weapons @6 :List(Weapon);
  equipped @7 :Weapon;
  path @8 :List(Vec3);
}

struct MonsterList {
  monsters @0 :List(Monster);
}

# ---- StructPacker small / large ----
struct SmallMessage {
  id @0 :Int32;
  isOutgoing @1 :Bool;
  priority @2 :UInt8;
  channel @3 :Int16;
  flags @4 :UInt32;
  sequence @5 :Int64;
  checksum @6 :UInt64;
  score @7 :Float32;
  balance @8 :Float64;
  timePosted @9 :Int64;
  timeToLive @10 :Int64;
  sender @11 :Text;
  text @12 :Text;
  recipients @13 :List(Int32);
  readings @14 :List(Float64);
  tags @15 :List(Text);
}

struct LargeMessage {
  header @0 :SmallMessage;
  samples @1 :List(Float64);
  ids @2 :List(Int32);
  weights @3 :List(Float32);
  labels @4 :List(Text);
  timestamps @5 :List(Int64);
}

# ---- Tick (design document) ----
struct Tick {
  timestampNs @0 :UInt64;
  symbolId @1 :UInt32;
  quantity @2 :UInt32;
  price @3 :Float64;
  side @4 :UInt8;
}
