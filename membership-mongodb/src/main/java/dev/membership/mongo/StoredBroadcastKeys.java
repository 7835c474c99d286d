package dev.membership.mongo;

import java.security.SecureRandom;
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

import dev.membership.broadcast.BroadcastKeyring;
import dev.membership.broadcast.CachedBroadcastKeys;

/**
 * The cluster's broadcast keys, generated once and kept in MongoDB: every node that can
 * read the database signs and verifies with no configuration. The first node to ask
 * inserts a random 256-bit key; everyone else reads it. To rotate, add a new key last in
 * the document's {@code keys} array, then, once every node has read it (five minutes:
 * {@link CachedBroadcastKeys}), move it first, then remove the old one
 * ({@link BroadcastKeyring}); or configure keys in properties instead. Driver-neutral:
 * {@link MongoBroadcastKeys} runs it on the blocking driver,
 * {@link ReactiveMongoBroadcastKeys} on the reactive one, and neither driver's types
 * appear here, so that an application with only the other driver can load it.
 */
class StoredBroadcastKeys extends CachedBroadcastKeys {

	private static final String DOCUMENT_ID = "broadcast";

	private final NodeDocuments.FindOneAndUpdate upsert;

	private final Function<Bson, Document> find;

	private final SecureRandom random = new SecureRandom();

	/** The keys through a driver's two calls, each blocking the caller. */
	StoredBroadcastKeys(NodeDocuments.FindOneAndUpdate upsert, Function<Bson, Document> find) {
		this.upsert = upsert;
		this.find = find;
	}

	@Override
	protected BroadcastKeyring load() {
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
			// another node inserted it first
			doc = this.find.apply(Filters.eq("_id", DOCUMENT_ID));
		}
		List<byte[]> secrets = new ArrayList<>();
		for (String encoded : doc.getList("keys", String.class)) {
			secrets.add(Base64.getDecoder().decode(encoded));
		}
		return new BroadcastKeyring(secrets);
	}

}
