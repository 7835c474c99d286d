package dev.membership.leadership;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * A partitioned group as this node sees it: a fixed number of partitions, spread by the
 * coordinator over the members that take part, each owned by one node at a time under an
 * epoch of its own. Keys map to partitions by a stable hash
 * ({@link #partitionOf(String, int)}) that never depends on membership: keys never move,
 * only partitions do. Everything here answers from memory. An operator releases, moves
 * and pins partitions with {@link dev.membership.operations.ClusterOperations}.
 */
public interface Partitions {

	String group();

	/** How many partitions the group has. */
	int count();

	/** The partition of {@code key} in this group. */
	default int partitionOf(String key) {
		return partitionOf(key, count());
	}

	/**
	 * The partitions this node owns now (under a valid term that is not ending), in
	 * ascending order.
	 */
	List<Integer> owned();

	/**
	 * Runs {@code task} if this node owns {@code partition} and is not handing it over;
	 * the task gets the partition's term from {@link LeaderContext#currentTerm()}, and a
	 * hand-over waits for it. Returns whether it ran.
	 */
	boolean runIfOwner(int partition, Runnable task);

	/**
	 * Which node the coordinator placed on each partition, as this node last read it (an
	 * unplaced one absent).
	 */
	Map<Integer, String> placement();

	/**
	 * Each partition's owner as this node knows it, with the owner's epoch: this node for
	 * the partitions it owns, else the holder of the partition's lease it last saw (a
	 * read, a release notice). A partition whose owner this node has not seen is absent.
	 * From memory: another node's ownership may have ended since.
	 */
	Map<Integer, LeaderInfo> owners();

	/**
	 * The partition of {@code key} among {@code partitions}: murmur3 (32-bit, seed 0) of
	 * the key's UTF-8 bytes, modulo the count. Stable across versions, nodes and
	 * restarts; other services may compute it too.
	 */
	static int partitionOf(String key, int partitions) {
		if (partitions < 1) {
			throw new IllegalArgumentException("A group has at least one partition, not " + partitions);
		}
		return Math.floorMod(murmur3(key.getBytes(StandardCharsets.UTF_8)), partitions);
	}

	/** MurmurHash3, x86 32-bit, seed 0. */
	private static int murmur3(byte[] data) {
		int c1 = 0xcc9e2d51;
		int c2 = 0x1b873593;
		int h = 0;
		int blocks = data.length / 4;
		for (int i = 0; i < blocks; i++) {
			int k = (data[4 * i] & 0xff) | ((data[4 * i + 1] & 0xff) << 8) | ((data[4 * i + 2] & 0xff) << 16)
					| ((data[4 * i + 3] & 0xff) << 24);
			k *= c1;
			k = Integer.rotateLeft(k, 15);
			k *= c2;
			h ^= k;
			h = Integer.rotateLeft(h, 13);
			h = h * 5 + 0xe6546b64;
		}
		int k = 0;
		int tail = blocks * 4;
		switch (data.length & 3) {
			case 3:
				k ^= (data[tail + 2] & 0xff) << 16;
			case 2:
				k ^= (data[tail + 1] & 0xff) << 8;
			case 1:
				k ^= data[tail] & 0xff;
				k *= c1;
				k = Integer.rotateLeft(k, 15);
				k *= c2;
				h ^= k;
			default:
		}
		h ^= data.length;
		h ^= h >>> 16;
		h *= 0x85ebca6b;
		h ^= h >>> 13;
		h *= 0xc2b2ae35;
		h ^= h >>> 16;
		return h;
	}

}
