import ServiceLifecycle

/// A service whose run, and every task it starts, prefers `executor` (the daemon's event
/// loop): the daemon's own services wake one thread at idle, while the services beside them in
/// the application (a file writer, the signal handler) keep the default pool.
struct ExecutorBoundService: Service {
    let service: any Service
    let executor: (any TaskExecutor)?

    init(_ service: any Service, executor: (any TaskExecutor)?) {
        self.service = service
        self.executor = executor
    }

    func run() async throws {
        try await withTaskExecutorPreference(executor) { try await service.run() }
    }
}
