package dev.membership.mongo;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

import com.mongodb.MongoNamespace;
import org.bson.Document;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The membership collections must not be spread over several shards: each shard's primary
 * would stamp the writes it takes with its own clock, so the stamps of one node's writes
 * would come from several clocks in turn, every tick would read as a jump of the
 * database's clock, and no node would ever judge an expiry again (a crashed holder's
 * lease never taken over). Asked of {@code $collStats}, which a {@code mongos} answers
 * with one document per shard that holds the collection's data; a server or user that
 * cannot answer it leaves the check to the nodes, which say at ERROR when stamps come
 * from more than one clock.
 */
final class Unsharded {

	private static final Logger log = LoggerFactory.getLogger(Unsharded.class);

	private Unsharded() {
	}

	/**
	 * Throws an {@link IllegalStateException} that names the fix when a collection's data
	 * is on more than one shard. {@code stats}: runs {@code $collStats} on a collection,
	 * returning its documents.
	 */
	static void check(List<MongoNamespace> collections, Function<MongoNamespace, List<Document>> stats) {
		List<String> sharded = new ArrayList<>();
		for (MongoNamespace collection : collections) {
			List<Document> perShard;
			try {
				perShard = stats.apply(collection);
			}
			catch (RuntimeException ex) {
				// $collStats unknown (a wire-compatible server), not allowed for this
				// user, or the database away
				log.debug("Could not tell whether {} is sharded ({}); the nodes will say if its stamps come from "
						+ "several clocks", collection, ex.getMessage());
				continue;
			}
			Set<String> shards = new TreeSet<>();
			perShard.forEach((d) -> {
				if (d.getString("shard") != null) {
					shards.add(d.getString("shard"));
				}
			});
			if (shards.size() > 1) {
				sharded.add(collection + " (on " + shards + ")");
			}
		}
		if (!sharded.isEmpty()) {
			throw new IllegalStateException("The membership collections must not be sharded: " + sharded + " hold "
					+ "data on several shards, whose primaries stamp writes with their own clocks, so no node could "
					+ "judge a lease's expiry (crashed holders would never be taken over). Unshard them (they are "
					+ "small: a document per node and per lease), or point membership.mongo.nodes-collection and "
					+ "membership.mongo.leases-collection at unsharded collections.");
		}
	}

	/**
	 * The {@code $collStats} stage that reports the shard of each part of a collection.
	 */
	static List<Document> pipeline() {
		return List.of(new Document("$collStats", new Document("count", new Document())));
	}

}
