import WireProtocol

/// What a price is shown as (`--unit`): money in the daemon's currency, or sats per one unit of
/// it, as "Moscow time" clocks show it (874 sats/$ at $114,459.80). Thresholds stay prices.
public enum PriceUnit: String, Sendable, Equatable {
    case fiat
    case sats

    /// `874 sats/$`, `5.88 sats/¥`, `1,250 sats/$`; nil without a price.
    static func satsText(_ status: StatusMessage) -> String? {
        guard let sats = status.satsPerUnit else { return nil }
        let figure = sats.contains(".") ? sats : MoneyText.groupedWhole(sats)
        return figure + " " + SatsText.perUnitLabel(currency: status.currency)
    }
}
