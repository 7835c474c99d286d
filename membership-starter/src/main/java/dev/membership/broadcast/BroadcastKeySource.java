package dev.membership.broadcast;

/** Where the cluster's broadcast keys come from: properties, or a key generated once and kept in the database. */
@FunctionalInterface
public interface BroadcastKeySource {

	/** The keys, primary first. May call the store; a failure is retried at the next use. */
	BroadcastKeyring keyring();

}
