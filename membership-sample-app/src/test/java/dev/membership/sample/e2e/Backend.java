package dev.membership.sample.e2e;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Which database the end-to-end tests run the sample on: MongoDB's embedded stand-in (the
 * default), or a real PostgreSQL server with the sample's postgres profile
 * ({@code -De2e.backend=postgres}, as Failsafe's second run sets).
 */
enum Backend {

	MONGODB, POSTGRES;

	static final Backend CURRENT = valueOf(System.getProperty("e2e.backend", "mongodb").toUpperCase(Locale.ROOT));

	/**
	 * The arguments of a process that runs only the database, on {@code port}, kept in
	 * {@code directory}.
	 */
	List<String> databaseArgs(int port, Path directory) {
		return (this == MONGODB)
				? List.of("--sample.embedded-mongo.standalone=true", "--sample.embedded-mongo.port=" + port,
						"--sample.embedded-mongo.directory=" + directory)
				: List.of("--spring.profiles.active=postgres", "--sample.embedded-postgres.standalone=true",
						"--sample.embedded-postgres.port=" + port,
						"--sample.embedded-postgres.directory=" + directory.resolve("data"));
	}

	/** The arguments of a node that joins the database on {@code port}. */
	List<String> nodeArgs(int port) {
		return (this == MONGODB) ? List.of("--sample.embedded-mongo.port=" + port)
				: List.of("--spring.profiles.active=postgres", "--sample.embedded-postgres.port=" + port);
	}

}
