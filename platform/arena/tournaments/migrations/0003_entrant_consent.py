from django.db import migrations, models

CONSENT = [("requested", "awaiting the owner's consent"), ("accepted", "accepted"),
           ("declined", "declined by the owner")]


class Migration(migrations.Migration):
    """Entries made before consent existed are kept as accepted (they were played, and their course's staff
    already saw the bots); every new entry of someone else's bot starts as a request."""

    dependencies = [
        ("tournaments", "0002_series_held_by_set_aside_games"),
    ]

    operations = [
        migrations.AddField(
            model_name="entrant",
            name="consent",
            field=models.CharField(choices=CONSENT, default="accepted", max_length=10),
        ),
        migrations.AlterField(
            model_name="entrant",
            name="consent",
            field=models.CharField(choices=CONSENT, default="requested", max_length=10,
                                   help_text="The owner's answer; entries still requested or declined at the "
                                             "start are dropped."),
        ),
    ]
