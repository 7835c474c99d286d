package dev.membership.mongo;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.function.Function;

import com.mongodb.MongoException;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.Updates;
import org.bson.Document;
import org.bson.conversions.Bson;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.broadcast.BroadcastKeySource;
import dev.membership.broadcast.BroadcastKeyring;
import dev.membership.spi.StoreException;

/**
 * The cluster's broadcast keys, generated once and kept in MongoDB: every node that can read the database signs and
 * verifies with no configuration. The first node to ask inserts a random 256-bit key; everyone else reads it. To
 * rotate, put a new key first in the document's {@code keys} array (nodes re-read it every few minutes), or configure
 * keys in properties instead. Driver-neutral: {@link MongoBroadcastKeys} runs it on the blocking driver,
 * {@link ReactiveMongoBroadcastKeys} on the reactive one, and neither driver's types appear here, so that an
 * application with only the other driver can load it.
 */
class StoredBroadcastKeys implements BroadcastKeySource {

	private static final Logger log = LoggerFactory.getLogger(StoredBroadcastKeys.class);

	private static final String DOCUMENT_ID = "broadcast";

	private static final Duration REFRESH = Duration.ofMinutes(5);

	private static final Duration RETRY = Duration.ofSeconds(30);

	private final NodeDocuments.FindOneAndUpdate upsert;

	private final Function<Bson, Document> find;

	private final SecureRandom random = new SecureRandom();

	private volatile BroadcastKeyring cached;

	private volatile long cachedAtNanos;

	/** The keys through a driver's two calls, each blocking the caller. */
	StoredBroadcastKeys(NodeDocuments.FindOneAndUpdate upsert, Function<Bson, Document> find) {
		this.upsert = upsert;
		this.find = find;
	}

	@Override
	public @Nullable BroadcastKeyring keyringAtHand() {
		BroadcastKeyring current = this.cached;
		return (current != null && System.nanoTime() - this.cachedAtNanos < REFRESH.toNanos()) ? current : null;
	}

	@Override
	public BroadcastKeyring keyring() {
		BroadcastKeyring current = this.cached;
		if (current != null && System.nanoTime() - this.cachedAtNanos < REFRESH.toNanos()) {
			return current;
		}
		try {
			BroadcastKeyring loaded = load();
			this.cached = loaded;
			this.cachedAtNanos = System.nanoTime();
			return loaded;
		}
		catch (RuntimeException ex) {
			// a driver error, or a reactive call that timed out or was refused on this thread
			if (current != null) {
				// keep the keys we have, and do not make every message wait out the store's timeout meanwhile
				this.cachedAtNanos = System.nanoTime() - REFRESH.toNanos() + RETRY.toNanos();
				log.warn("Cannot refresh the broadcast keys ({}); keeping the ones read before, trying again in {}",
						ex.getMessage(), RETRY);
				return current;
			}
			throw new StoreException("Cannot read the broadcast keys: " + ex.getMessage(), ex);
		}
	}

	private BroadcastKeyring load() {
		byte[] candidate = new byte[32];
		this.random.nextBytes(candidate);
		Document doc;
		try {
			doc = this.upsert.apply(Filters.eq("_id", DOCUMENT_ID),
					Updates.combine(Updates.setOnInsert("keys", List.of(Base64.getEncoder().encodeToString(candidate))),
							Updates.setOnInsert("createdAt", new java.util.Date())),
					new FindOneAndUpdateOptions().upsert(true).returnDocument(ReturnDocument.AFTER));
		}
		catch (MongoException ex) {
			if (ex.getCode() != MembershipDocuments.DUPLICATE_KEY) {
				throw ex;
			}
			doc = this.find.apply(Filters.eq("_id", DOCUMENT_ID)); // another node inserted it first
		}
		List<byte[]> secrets = new ArrayList<>();
		for (String encoded : doc.getList("keys", String.class)) {
			secrets.add(Base64.getDecoder().decode(encoded));
		}
		return new BroadcastKeyring(secrets);
	}

}
