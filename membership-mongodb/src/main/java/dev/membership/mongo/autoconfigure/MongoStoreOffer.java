package dev.membership.mongo.autoconfigure;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

import dev.membership.autoconfigure.MembershipStoreOffer;

/**
 * Whether this application can keep the cluster in MongoDB, told from classes and beans
 * by name: an application with membership-mongodb but without Spring Data MongoDB or a
 * driver loads this too.
 */
final class MongoStoreOffer {

	static final String STORE = "mongodb";

	static final String MODULE = "dev.membership:membership-mongodb";

	private static final String FACTORY = "org.springframework.data.mongodb.MongoDatabaseFactory";

	private static final String REACTIVE_FACTORY = "org.springframework.data.mongodb.ReactiveMongoDatabaseFactory";

	private static final String DRIVER = "com.mongodb.client.MongoClient";

	private static final String REACTIVE_DRIVER = "com.mongodb.reactivestreams.client.MongoClient";

	private MongoStoreOffer() {
	}

	static MembershipStoreOffer of(ListableBeanFactory beans, ClassLoader classLoader) {
		boolean springData = ClassUtils.isPresent(FACTORY, classLoader);
		boolean sync = springData && ClassUtils.isPresent(DRIVER, classLoader);
		boolean reactive = springData && ClassUtils.isPresent(REACTIVE_DRIVER, classLoader)
				&& ClassUtils.isPresent("reactor.core.publisher.Mono", classLoader);
		if ((sync && has(beans, FACTORY, classLoader)) || (reactive && has(beans, REACTIVE_FACTORY, classLoader))) {
			return MembershipStoreOffer.ready(STORE, MODULE, MembershipMongoProperties.class);
		}
		return MembershipStoreOffer.missing(STORE, MODULE, MembershipMongoProperties.class,
				missing(classLoader, sync, reactive));
	}

	private static String missing(ClassLoader classLoader, boolean sync, boolean reactive) {
		boolean springData = ClassUtils.isPresent(FACTORY, classLoader);
		boolean driver = ClassUtils.isPresent(DRIVER, classLoader);
		boolean reactiveDriver = ClassUtils.isPresent(REACTIVE_DRIVER, classLoader);
		if (!springData && (driver || reactiveDriver)) {
			return "the MongoDB driver is there but not Spring Data MongoDB, whose database factory the store runs on "
					+ "(spring-boot-starter-mongodb brings only the driver: add spring-boot-starter-data-mongodb, or "
					+ "its -reactive sibling)";
		}
		if (!springData) {
			return "there is no MongoDB driver and Spring Data MongoDB on the classpath (add "
					+ "spring-boot-starter-data-mongodb, or its -reactive sibling)";
		}
		if (!driver && !reactiveDriver) {
			return "Spring Data MongoDB is there but no MongoDB driver (add spring-boot-starter-data-mongodb, or its "
					+ "-reactive sibling)";
		}
		if (!sync && reactive) {
			return "the application has the reactive MongoDB driver but no ReactiveMongoDatabaseFactory bean (is "
					+ "spring-boot-starter-data-mongodb-reactive there, and its auto-configuration not excluded?)";
		}
		return "there is no MongoDatabaseFactory bean (is the MongoDB auto-configuration excluded, or replaced by "
				+ "configuration without one?)";
	}

	private static boolean has(ListableBeanFactory beans, String type, ClassLoader classLoader) {
		return beans.getBeanNamesForType(ClassUtils.resolveClassName(type, classLoader), true, false).length > 0;
	}

}
