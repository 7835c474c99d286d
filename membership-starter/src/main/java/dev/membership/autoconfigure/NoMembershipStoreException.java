package dev.membership.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * Membership is enabled but no {@link dev.membership.spi.MembershipStore} can be made: without one the application
 * would start, and its leader-only work would never run on any node.
 */
class NoMembershipStoreException extends IllegalStateException {

	private final String reason;

	/**
	 * {@code classLoader}: the application's, to tell which drivers and stores it has; {@code store}: the one
	 * {@code membership.store} names, if any.
	 */
	NoMembershipStoreException(ClassLoader classLoader, MembershipProperties.@Nullable Store store) {
		this(reason(classLoader, store));
	}

	private NoMembershipStoreException(String reason) {
		super("No MembershipStore: " + reason);
		this.reason = reason;
	}

	String reason() {
		return this.reason;
	}

	private static String reason(ClassLoader classLoader, MembershipProperties.@Nullable Store store) {
		boolean jdbc = ClassUtils.isPresent("dev.membership.jdbc.JdbcMembershipStore", classLoader);
		if (store == MembershipProperties.Store.JDBC) {
			return jdbc ? "membership.store=jdbc and there is no DataSource bean (is spring-boot-starter-jdbc there, "
					+ "with spring.datasource.url?)" : "membership.store=jdbc and membership-jdbc (the PostgreSQL store, "
							+ "dev.membership:membership-jdbc) is not on the classpath";
		}
		if (store == null && jdbc) {
			return "membership-jdbc is on the classpath but there is no DataSource bean (is spring-boot-starter-jdbc "
					+ "there, with spring.datasource.url?), nor a MongoDB one";
		}
		boolean sync = ClassUtils.isPresent("org.springframework.data.mongodb.MongoDatabaseFactory", classLoader)
				&& ClassUtils.isPresent("com.mongodb.client.MongoClient", classLoader);
		boolean reactive = ClassUtils.isPresent("com.mongodb.reactivestreams.client.MongoClient", classLoader);
		if (!sync && reactive) {
			return "the application has the reactive MongoDB driver but no ReactiveMongoDatabaseFactory bean (is "
					+ "spring-boot-starter-data-mongodb-reactive there, and its auto-configuration not excluded?)";
		}
		if (!sync && ClassUtils.isPresent("com.mongodb.client.MongoClient", classLoader)) {
			return "the MongoDB driver is there but not Spring Data MongoDB, whose MongoDatabaseFactory the store runs "
					+ "on (spring-boot-starter-mongodb brings only the driver)";
		}
		if (!sync) {
			return "there is no MongoDB driver on the classpath and the application defines no MembershipStore bean";
		}
		return "there is no MongoDatabaseFactory bean (is the MongoDB auto-configuration excluded, or replaced by "
				+ "configuration without one?) and the application defines no MembershipStore bean";
	}

}
