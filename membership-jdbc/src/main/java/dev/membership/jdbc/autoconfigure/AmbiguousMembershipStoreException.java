package dev.membership.jdbc.autoconfigure;

/**
 * The application has both a DataSource (with membership-jdbc) and MongoDB, and {@code membership.store} does not say
 * which one keeps the cluster: choosing silently could split the cluster over two databases as instances differ.
 */
class AmbiguousMembershipStoreException extends IllegalStateException {

	AmbiguousMembershipStoreException() {
		super("membership-starter finds both a DataSource (membership-jdbc is on the classpath) and a MongoDB database "
				+ "factory, and membership.store does not say which one keeps the cluster");
	}

}
