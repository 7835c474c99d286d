package dev.membership.sample.embedded;

import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.commons.logging.Log;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.config.ConfigDataEnvironmentPostProcessor;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.context.aot.AbstractAotProcessor;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * With no MongoDB configured, starts (or joins, when its port is taken) the embedded
 * wire-protocol test database and points the application at it. Standalone mode runs only
 * that database.
 * <p>
 * The database runs only when the application really runs: ahead-of-time processing gets
 * the same properties (they decide conditions frozen at build time) but no database, and
 * a start that fails stops it, since its threads would otherwise keep the failed process
 * alive.
 */
public class EmbeddedMongoEnvironmentPostProcessor implements EnvironmentPostProcessor, Ordered {

	private final Log log;

	public EmbeddedMongoEnvironmentPostProcessor(DeferredLogFactory logs) {
		this.log = logs.getLog(EmbeddedMongoEnvironmentPostProcessor.class);
	}

	@Override
	public int getOrder() {
		// after application.properties is loaded
		return ConfigDataEnvironmentPostProcessor.ORDER + 1;
	}

	@Override
	public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
		if (environment.acceptsProfiles(EmbeddedPostgresEnvironmentPostProcessor.POSTGRES)) {
			return; // the cluster and the sample's data are in PostgreSQL
		}
		// bound by hand: this runs before the application context (and
		// @EnableConfigurationProperties) exists
		EmbeddedMongoProperties embedded = Binder.get(environment)
			.bindOrCreate("sample.embedded-mongo", EmbeddedMongoProperties.class);
		boolean configured = environment.containsProperty("spring.mongodb.uri")
				|| environment.containsProperty("spring.data.mongodb.uri")
				|| environment.containsProperty("spring.mongodb.host");
		boolean enabled = (embedded.enabled() != null) ? embedded.enabled() : !configured;
		boolean standalone = embedded.standalone();
		if (!enabled && !standalone) {
			return;
		}
		int port = embedded.port();
		String directory = embedded.directory();
		String database = embedded.database();
		if (!Boolean.getBoolean(AbstractAotProcessor.AOT_PROCESSING)) {
			EmbeddedMongoServer server = EmbeddedMongoServer.startOrJoin(port, directory, this.log);
			application.addInitializers(
					(context) -> context.getBeanFactory().registerSingleton("embeddedMongoServer", server));
			application.addListeners(server.stopOnFailedStart());
		}
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("spring.mongodb.uri", "mongodb://127.0.0.1:" + port + "/" + database);
		// Boot's MongoDB health check sends "hello", which the stand-in does not know;
		// membership's own check stays
		properties.put("management.health.mongodb.enabled", "false");
		if (standalone) {
			properties.put("spring.main.web-application-type", "none");
			properties.put("membership.enabled", "false");
		}
		environment.getPropertySources().addFirst(new MapPropertySource("embeddedMongo", properties));
		if (Boolean.getBoolean(AbstractAotProcessor.AOT_PROCESSING)) {
			return; // processing ahead of time: nothing runs, nothing to say
		}
		this.log.info("Using the EMBEDDED TEST DATABASE (mongo-java-server, a MongoDB wire-protocol server in Java) at "
				+ "127.0.0.1:" + port + ", data under " + directory + ". It is for trying the sample, not for "
				+ "production: point the app at a real MongoDB with --spring.mongodb.uri=mongodb://host:27017/db "
				+ "(a replica set in production).");
	}

}
