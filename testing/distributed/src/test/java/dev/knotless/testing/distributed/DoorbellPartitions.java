package dev.knotless.testing.distributed;

import java.nio.charset.StandardCharsets;

/**
 * The partition Kafka's default partitioner gives a keyed record: the key's UTF-8 bytes hashed with
 * murmur2 (seed 0x9747b28c), the sign bit cleared, modulo the partitions. The ingester keys each
 * doorbell {@code <owner did>/<repo key>}, so a test can tell which partition a repository rings.
 */
final class DoorbellPartitions {

  private DoorbellPartitions() {}

  static int of(String key, int partitions) {
    return (murmur2(key.getBytes(StandardCharsets.UTF_8)) & 0x7fffffff) % partitions;
  }

  static int murmur2(byte[] data) {
    final int m = 0x5bd1e995;
    int h = 0x9747b28c ^ data.length;
    int whole = data.length / 4;
    for (int i = 0; i < whole; i++) {
      int at = i * 4;
      int k =
          (data[at] & 0xff)
              | (data[at + 1] & 0xff) << 8
              | (data[at + 2] & 0xff) << 16
              | (data[at + 3] & 0xff) << 24;
      k *= m;
      k ^= k >>> 24;
      k *= m;
      h *= m;
      h ^= k;
    }
    int tail = data.length & ~3;
    switch (data.length % 4) {
      case 3:
        h ^= (data[tail + 2] & 0xff) << 16;
      // falls through
      case 2:
        h ^= (data[tail + 1] & 0xff) << 8;
      // falls through
      case 1:
        h ^= data[tail] & 0xff;
        h *= m;
        break;
      default:
        break;
    }
    h ^= h >>> 13;
    h *= m;
    h ^= h >>> 15;
    return h;
  }
}
