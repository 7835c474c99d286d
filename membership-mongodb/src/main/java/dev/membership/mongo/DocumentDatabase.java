package dev.membership.mongo;

import java.util.function.Supplier;

import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * A database, as the stores use it, on either driver: its collections, its commands, and
 * how one store operation's failures become {@link dev.membership.spi.StoreException}s.
 */
interface DocumentDatabase {

	Documents collection(String name);

	Document runCommand(Bson command);

	/** Runs one store operation, its failures told as the store's. */
	<T> T call(String operation, Supplier<T> action);

}
