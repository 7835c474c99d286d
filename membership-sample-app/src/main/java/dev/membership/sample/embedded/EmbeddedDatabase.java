package dev.membership.sample.embedded;

/** The sample's embedded database of this process (MongoDB's stand-in or PostgreSQL), or a handle on another's. */
interface EmbeddedDatabase {

	String description();

	/** Blocks until this process stops the database. */
	void awaitStop() throws InterruptedException;

}
